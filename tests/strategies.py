"""Hypothesis strategies: legal positions, and every way a client may encode a board."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from service.game.board import Board, Mark
from service.game.rules import FAMILY, Rules

EMPTY_IN_LISTS = [None, "", " ", "_", "-", "."]
EMPTY_IN_STRINGS = [" ", "_", "-", "."]

#: The 8 symmetries of the square, each as where every cell goes.
SYMMETRIES: list[tuple[int, ...]] = []
for turns in range(4):
    for mirrored in (False, True):
        mapping = []
        for index in range(9):
            row, col = divmod(index, 3)
            if mirrored:
                col = 2 - col
            for _ in range(turns):
                row, col = col, 2 - row
            mapping.append(3 * row + col)
        SYMMETRIES.append(tuple(mapping))


def transformed(board: Board, symmetry: tuple[int, ...]) -> Board:
    """Return the board with every cell moved where the symmetry sends it."""
    cells: list[Mark | None] = [None] * 9
    for index, cell in enumerate(board.cells):
        cells[symmetry[index]] = cell
    return Board(tuple(cells))


@st.composite
def positions(draw: st.DrawFn, *, unfinished: bool = False) -> tuple[Board, Mark]:
    """A position some game reaches: a random first player and random moves from empty."""
    board, mover = Board(), draw(st.sampled_from(list(Mark)))
    for _ in range(draw(st.integers(min_value=0, max_value=9))):
        if board.status().is_over:
            break
        move = draw(st.sampled_from(board.empty_cells()))
        board, mover = board.play(move, mover), mover.opponent
    if unfinished and board.status().is_over:
        # Step back is not possible; start over from a shorter game instead.
        return draw(positions(unfinished=True))
    return board, mover


@st.composite
def family_positions(
    draw: st.DrawFn, *, unfinished: bool = False, games: tuple[Rules, ...] = FAMILY
) -> tuple[Board, Mark]:
    """A position of any game of the family: a game, a first player and random moves."""
    rules = draw(st.sampled_from(games))
    board, mover = Board.empty(rules), draw(st.sampled_from(list(Mark)))
    for _ in range(draw(st.integers(min_value=0, max_value=rules.cell_count))):
        if board.status().is_over:
            break
        move = draw(st.sampled_from(board.empty_cells()))
        if unfinished and board.play(move, mover).status().is_over:
            # Stop short of the end rather than start over: every game still draws quickly.
            break
        board, mover = board.play(move, mover), mover.opponent
    return board, mover


@st.composite
def encodings(draw: st.DrawFn, board: Board) -> Any:
    """One of the accepted encodings of `board`, with any mix of empties and cases."""

    def mark(cell: Mark) -> str:
        return draw(st.sampled_from([cell.value, cell.value.lower()]))

    style = draw(st.sampled_from(["cells", "rows", "text"]))
    if style == "text":
        return "".join(
            mark(cell) if cell else draw(st.sampled_from(EMPTY_IN_STRINGS)) for cell in board.cells
        )
    cells = [
        mark(cell) if cell else draw(st.sampled_from([*EMPTY_IN_LISTS, index]))
        for index, cell in enumerate(board.cells)
    ]
    return cells if style == "cells" else [cells[0:3], cells[3:6], cells[6:9]]
