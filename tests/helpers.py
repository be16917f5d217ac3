"""Helpers that let tests draw boards the way people do."""

from __future__ import annotations

from service.board import Board


def board(*rows: str) -> Board:
    """Draw a board as three rows of three characters: X, O, or '.' for an empty cell."""
    assert len(rows) == 3, rows
    assert all(len(row) == 3 for row in rows), rows
    return Board.from_text("".join(rows))
