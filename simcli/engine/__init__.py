"""The rules engine: the deal's state, rule arithmetic and legality, what a seat sees and is asked, the turn in named
phases, scoring, the game loop and its events. Variant features live in :mod:`simcli.engine.features`."""
