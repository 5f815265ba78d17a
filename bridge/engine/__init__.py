"""The engine: the rules asked and applied.

The questions a position is asked (:mod:`bridge.engine.board`), the clingo sessions that
answer them (:mod:`bridge.engine.solver`) from the position's facts
(:mod:`bridge.engine.facts`), and what each action does to the position, each in its module:
state-based actions, priority, combat, casting, resolving, the turn.  bridge/README.md draws
the modules and the order in which they may import one another.
"""
