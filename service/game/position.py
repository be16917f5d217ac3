"""A position: a board some game reaches, checked once, with who moves and how it stands.

The engine makes one from a board and the player a caller asks for (`Engine.position`), so
that legality, the side to move, the status and where the answer comes from are worked out
once, at the edge, and passed down rather than found again by every layer.
"""

from __future__ import annotations

from dataclasses import dataclass

from service.game.board import Board, GameStatus, Mark
from service.game.difficulty import Difficulty
from service.game.renju import FoulMove
from service.game.rules import Rules


@dataclass(frozen=True, slots=True)
class Position:
    """A legal board, its side to move and its status, and whether a table answers it."""

    board: Board
    side_to_move: Mark
    status: GameStatus
    #: Answered exactly from a solved table; any other game is searched within a budget.
    in_table: bool
    #: Under renju, black's foul that ended the game, if its last move was one.
    foul: FoulMove | None = None
    #: Under renju, the cells black may not play, when black is to move; else none.
    forbidden: frozenset[int] = frozenset()

    @property
    def rules(self) -> Rules:
        """Return the game this position is of."""
        return self.board.rules

    def searches_for(self, difficulty: Difficulty | None) -> bool:
        """Return whether answering costs a search: a game in progress beyond the tables,
        for an analysis (None) or a level that plays its best moves."""
        if self.in_table or self.status.is_over:
            return False
        return difficulty is None or difficulty.plays_best
