"""The game: the board and its lines, legality, the generic search, the engine, difficulty.

No web framework and no validation library here: the HTTP edge converts to these values.
"""
