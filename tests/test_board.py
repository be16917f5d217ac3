"""The board: an immutable value whose winning lines are data."""

from __future__ import annotations

import dataclasses

import pytest

from service.game.board import WINNING_LINES, Board, GameStatus, Mark
from service.game.rules import CLASSIC, Rules
from tests.helpers import board


def test_winning_lines_are_the_rows_columns_and_diagonals() -> None:
    rows = {tuple(3 * row + col for col in range(3)) for row in range(3)}
    columns = {tuple(3 * row + col for row in range(3)) for col in range(3)}
    diagonals = {(0, 4, 8), (2, 4, 6)}
    assert set(WINNING_LINES) == rows | columns | diagonals
    assert len(WINNING_LINES) == 8


def test_winning_lines_are_ascending_triples_in_ascending_order() -> None:
    assert all(list(line) == sorted(line) for line in WINNING_LINES)
    assert list(WINNING_LINES) == sorted(WINNING_LINES)


@pytest.mark.parametrize(
    ("rows", "status"),
    [
        (("...", "...", "..."), GameStatus.IN_PROGRESS),
        (("XO.", ".X.", "..O"), GameStatus.IN_PROGRESS),
        (("XXX", "OO.", "..."), GameStatus.X_WON),
        (("X.O", "XO.", "O.X"), GameStatus.O_WON),
        (("OX.", "OX.", ".X."), GameStatus.X_WON),
        (("XOX", "XOO", "OXX"), GameStatus.DRAW),
        (("XOX", "OXO", "OXX"), GameStatus.X_WON),
    ],
)
def test_status_says_who_won_or_whether_the_board_is_full(
    rows: tuple[str, str, str], status: GameStatus
) -> None:
    assert board(*rows).status() is status


@pytest.mark.parametrize(
    ("rows", "lines"),
    [
        (("...", "...", "..."), ()),
        (("XXX", "OO.", "..."), ((0, 1, 2),)),
        (("XXX", "XOO", "XOO"), ((0, 1, 2), (0, 3, 6))),
        (("XOX", "OXO", "OXX"), ((0, 4, 8),)),
    ],
)
def test_completed_lines_lists_every_full_line_in_order(
    rows: tuple[str, str, str], lines: tuple[tuple[int, int, int], ...]
) -> None:
    assert board(*rows).completed_lines() == lines


def test_playing_returns_a_new_board_and_leaves_the_old_one_alone() -> None:
    before = board("...", "...", "...")
    after = before.play(4, Mark.X)
    assert after == board("...", ".X.", "...")
    assert before == Board()


def test_a_board_cannot_be_changed_in_place() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        Board().cells = ()  # type: ignore[misc]  # the very assignment the test expects to fail


def test_playing_on_a_taken_cell_is_refused() -> None:
    with pytest.raises(ValueError, match="cell 4 is already taken"):
        board("...", ".X.", "...").play(4, Mark.O)


def test_a_board_has_nine_cells() -> None:
    with pytest.raises(ValueError, match="9 cells"):
        Board((None,) * 8)


def test_boards_are_values_usable_as_keys() -> None:
    assert {board("X..", "...", "..."): 1}[Board.from_text("X........")] == 1


@pytest.mark.parametrize(("index", "row_and_column"), [(0, (0, 0)), (5, (1, 2)), (7, (2, 1))])
def test_cells_are_numbered_in_row_major_order(index: int, row_and_column: tuple[int, int]) -> None:
    assert CLASSIC.coordinates(index) == row_and_column


def test_a_mark_knows_its_opponent() -> None:
    assert Mark.X.opponent is Mark.O
    assert Mark.O.opponent is Mark.X


def test_status_names_the_winner() -> None:
    assert GameStatus.X_WON.winner is Mark.X
    assert GameStatus.O_WON.winner is Mark.O
    assert GameStatus.DRAW.winner is None
    assert not GameStatus.IN_PROGRESS.is_over


@pytest.mark.parametrize(
    "rules", [Rules(3, 3, 3), Rules(4, 4, 3), Rules(15, 15, 5), Rules(6, 9, 1), Rules(7, 2, 2)]
)
def test_the_line_index_holds_every_line_once_from_its_lowest_cell_and_through_each_cell(
    rules: Rules,
) -> None:
    index = rules.line_index
    assert tuple(line for lines in index.starting_at for line in lines) == rules.lines
    for cell in range(rules.cell_count):
        assert set(index.through[cell]) == {line for line in rules.lines if cell in line}
