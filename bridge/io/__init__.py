"""Input and output: running scenario files against the engine and comparing their
expectations (:mod:`bridge.io.scenarios`), the JSON Schemas of scenario and card files
(:mod:`bridge.io.schemas`), and files written whole or not at all (:mod:`bridge.io.writing`).
"""
