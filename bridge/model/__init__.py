"""The model: what a game is made of, as data.  The game state (:mod:`bridge.model.state`), the
actions (:mod:`bridge.model.actions`), cards and the pool they come from
(:mod:`bridge.model.cards`), scenario files (:mod:`bridge.model.scenario`), reading files with
errors that name the place (:mod:`bridge.model.reading`), rule numbers and citations of them
(:mod:`bridge.model.citations`), the limits on input (:mod:`bridge.model.limits`) and the errors
(:mod:`bridge.model.errors`).  No rules here: nothing in this package asks clingo, and it imports
nothing else of ``bridge``.
"""
