"""Play: who decides and the loop that asks them (:mod:`bridge.play.agents`), and whole random
games between decks with the state checked after every action (:mod:`bridge.play.selfplay`).
"""
