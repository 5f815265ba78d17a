"""Input and output: running scenario files against the engine and comparing their
expectations (:mod:`bridge.io.scenarios`), the JSON Schemas of scenario and card files
(:mod:`bridge.io.schemas`), files written whole or not at all (:mod:`bridge.io.writing`), and
which rules the rule modules cite and the scenarios exercise (:mod:`bridge.io.coverage`).
"""
