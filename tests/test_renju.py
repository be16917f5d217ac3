"""Renju's fouls (`service.game.renju`): black's double threes, double fours and overlines,
a five never a foul, and the recursive three; held to the tests' own judge on seeded
positions crowded with fouls (and, while developing, to GomocupJudge's: docs/RENJU.md)."""

from __future__ import annotations

import random

import pytest

from benchmarks.renju_judges import crowded_position
from service.game.board import Board, Mark
from service.game.renju import Foul, forbidden_cells, foul
from service.game.rules import Rules
from tests.renju_reference import reference_forbidden

RENJU_BOARD = Rules(15, 15, 5)


def drawn(*rows: str) -> tuple[Board, int]:
    """Return a 15x15 board with this drawing from its corner (row 3, column 3) and the
    cell marked '?' (empty), black to judge there."""
    cells = ["."] * RENJU_BOARD.cell_count
    asked = None
    for row, text in enumerate(rows):
        for col, char in enumerate(text.replace(" ", "")):
            cell = (row + 3) * 15 + col + 3
            if char == "?":
                asked = cell
            else:
                cells[cell] = char
    assert asked is not None
    return Board.from_text("".join(cells), RENJU_BOARD), asked


@pytest.mark.parametrize(
    ("drawing", "expected"),
    [
        # Two open threes at once.
        (("......", "....X.", "....X.", "..XX?.", "......"), Foul.DOUBLE_THREE),
        # White a cell beyond one's end leaves it a three; white at its end shuts it, and a
        # single three is allowed.
        (("....O.", "......", "....X.", "....X.", "..XX?.", "......"), Foul.DOUBLE_THREE),
        (("....O.", "....X.", "....X.", "..XX?.", "......", "......"), None),
        (("......", "....X.", "....X.", ".OXX?.", "......"), None),
        # Split threes count: X.X? and the column.
        (("......", "....X.", "....X.", ".X.X?..", "......"), Foul.DOUBLE_THREE),
        # Two fours in two lines, and two in one line (X.XXX.X, XXX.X.XXX, XX.XX.XX).
        (("....X.", "....X.", "....X.", ".XXX?.", "......"), Foul.DOUBLE_FOUR),
        (("X.X?X.X",), Foul.DOUBLE_FOUR),
        (("XXX.?.XXX",), Foul.DOUBLE_FOUR),
        (("XX.?X.XX",), Foul.DOUBLE_FOUR),
        # A four and a three together: allowed.
        (("......", "....X.", "....X.", ".XXX?.", "......"), None),
        # Six or more in a row.
        (("XXX?XX",), Foul.OVERLINE),
        (("XX?XXXX",), Foul.OVERLINE),
        # Exactly five is never a foul, whatever else the move makes.
        (("XXXX?",), None),
        (("....X.", "....X.", "....X.", "....X.", "XXXX?.", "......"), None),
        (("XX?XX", "..X..", "..X..", "..X.."), None),
        # A three whose straight four would need an overline is no three.
        (("......", "....X.", "....X.", "X.XX?..", "......"), None),
    ],
)
def test_black_fouls_by_the_rules(drawing: tuple[str, ...], expected: Foul | None) -> None:
    board, cell = drawn(*drawing)
    assert foul(board, cell) is expected
    assert (cell in forbidden_cells(board)) is (expected is not None)
    assert (cell in reference_forbidden(board)) is (expected is not None)


def test_a_three_whose_straight_four_would_be_a_foul_is_no_three() -> None:
    """The recursive rule: black's stone at (9, 7) makes two threes as rows go, but the
    column's one way to a straight four, (8, 7), is a double four: one three, no foul."""
    rows = [
        "...............",
        "...............",
        "...............",
        ".......X.......",
        "...............",
        ".........O.....",
        "....O..........",
        ".......X.......",
        ".....XX..X.....",
        ".....O.?.......",
        ".......X.......",
        ".........X.....",
        "...O.X.........",
        "...............",
        "...............",
    ]
    text = "".join(rows)
    cell = text.index("?")
    board = Board.from_text(text.replace("?", "."), RENJU_BOARD)
    assert foul(board.play(cell, Mark.X), 8 * 15 + 7) is Foul.DOUBLE_FOUR
    assert foul(board, cell) is None
    assert cell not in reference_forbidden(board)


def test_white_and_an_empty_board_have_no_fouls() -> None:
    board, _cell = drawn("OOO?OO")
    assert forbidden_cells(Board.empty(RENJU_BOARD)) == ()
    assert forbidden_cells(board) == ()


@pytest.mark.parametrize("seed", range(8))
def test_every_foul_agrees_with_an_independent_judge(seed: int) -> None:
    """Seeded positions crowded with black's rows: every empty cell judged both ways."""
    rng = random.Random(seed)
    for _ in range(10):
        board = crowded_position(rng)
        assert set(forbidden_cells(board)) == reference_forbidden(board), board.to_text()


@pytest.mark.parametrize("seed", range(4))
def test_every_foul_agrees_with_the_independent_judge_on_any_board_from_5x5(seed: int) -> None:
    """Renju is played on any board of at least 5x5: boards of 5 to 20 rows and columns,
    the edges closing rows of every length."""
    rng = random.Random(seed)
    for _ in range(25):
        rules = Rules(rng.randint(5, 20), rng.randint(5, 20), 5)
        board = Board.empty(rules)
        for _ in range(rng.randint(5, min(40, rules.cell_count // 2))):
            mark = Mark.O if rng.random() < 1 / 3 else Mark.X
            played = board.play(rng.choice(board.empty_cells()), mark)
            if not played.completed_lines():
                board = played
        assert set(forbidden_cells(board)) == reference_forbidden(board), board.to_text()
