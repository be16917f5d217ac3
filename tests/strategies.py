"""Hypothesis strategies: legal positions, and every way a client may encode a board."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from service.game.board import Board, Mark
from service.game.rules import CLASSIC, FAMILY, Rules

EMPTY_IN_LISTS = [None, "", " ", "_", "-", "."]
EMPTY_IN_STRINGS = [" ", "_", "-", "."]


def symmetries(rows: int, cols: int) -> list[tuple[int, ...]]:
    """Return the symmetries of a rows x cols board, each as where every cell goes: the 8
    of a square (flips of rows and of columns, each with or without swapping rows for
    columns), or the 4 of any other rectangle (a swap would change its shape)."""
    found = set()
    for swapped in (False, True) if rows == cols else (False,):
        for flip_rows in (False, True):
            for flip_cols in (False, True):
                mapping = []
                for index in range(rows * cols):
                    row, col = divmod(index, cols)
                    row = rows - 1 - row if flip_rows else row
                    col = cols - 1 - col if flip_cols else col
                    row, col = (col, row) if swapped else (row, col)
                    mapping.append(row * cols + col)
                found.add(tuple(mapping))
    return sorted(found)


#: The 8 symmetries of the 3x3 square.
SYMMETRIES = symmetries(3, 3)


def transformed(board: Board, symmetry: tuple[int, ...]) -> Board:
    """Return the board with every cell moved where the symmetry sends it."""
    cells: list[Mark | None] = [None] * len(board.cells)
    for index, cell in enumerate(board.cells):
        cells[symmetry[index]] = cell
    return Board(tuple(cells), board.rules)


@st.composite
def positions(draw: st.DrawFn, *, unfinished: bool = False) -> tuple[Board, Mark]:
    """A position some 3x3 game reaches: a random first player and random moves from empty."""
    return draw(family_positions(unfinished=unfinished, games=(CLASSIC,)))


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
    cols = board.rules.cols
    return (
        cells if style == "cells" else [cells[at : at + cols] for at in range(0, len(cells), cols)]
    )
