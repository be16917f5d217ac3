"""Which boards can arise in a game, whose turn it is, and why an impossible board is refused."""

from __future__ import annotations

import pytest

from service.game.board import Board, Mark
from service.game.legality import Illegality, IllegalPosition, check_board, side_to_move
from tests import reference
from tests.helpers import board


@pytest.mark.parametrize(
    ("rows", "reason"),
    [
        (("XXX", "...", "XXX"), Illegality.PLAY_AFTER_WIN),
        (("OOO", "X.X", "OOO"), Illegality.PLAY_AFTER_WIN),
        (("XXX", "OOO", "..."), Illegality.BOTH_PLAYERS_WON),
        (("XO.", "XO.", "XO."), Illegality.BOTH_PLAYERS_WON),
        (("XXX", "XX.", "O.."), Illegality.MARK_COUNT_GAP),
        (("OO.", "...", "..."), Illegality.MARK_COUNT_GAP),
        (("XXX", "OO.", "OO."), Illegality.WINNER_NOT_LAST_TO_MOVE),
        (("OOO", "XX.", "X.X"), Illegality.WINNER_NOT_LAST_TO_MOVE),
    ],
)
def test_an_impossible_board_is_refused_with_the_rule_it_breaks(
    rows: tuple[str, str, str], reason: Illegality
) -> None:
    with pytest.raises(IllegalPosition) as refused:
        check_board(board(*rows))
    assert refused.value.reason is reason
    assert refused.value.detail


@pytest.mark.parametrize(
    ("rows", "words"),
    [
        (("XXX", "...", "XXX"), "X has two separate lines, [0, 1, 2] and [6, 7, 8]"),
        (("XXX", "OOO", "..."), "both X and O have three in a row"),
        (("XXX", "XX.", "O.."), "X has 5 marks and O has 1"),
        (("XXX", "OO.", "OO."), "X has three in a row but fewer marks than O"),
    ],
)
def test_the_reason_names_what_is_wrong(rows: tuple[str, str, str], words: str) -> None:
    with pytest.raises(IllegalPosition, match=words.replace("[", r"\[").replace("]", r"\]")):
        check_board(board(*rows))


@pytest.mark.parametrize(
    "rows",
    [
        ("...", "...", "..."),
        ("O..", "...", "..."),  # O may start
        ("XXX", "OO.", "..."),  # X won on its last move
        ("XXX", "XOO", "XOO"),  # one last move at the corner completed two lines
        ("XXX", "OO.", "O.."),  # equal counts: O started and X won on the last move
        ("OOO", "XX.", "X.."),  # equal counts: X started and O won on the last move
    ],
)
def test_boards_that_a_game_can_reach_are_accepted(rows: tuple[str, str, str]) -> None:
    check_board(board(*rows))


def test_exactly_the_boards_some_game_reaches_are_legal() -> None:
    """Every one of the 3^9 fillings of the grid, against a walk of every game."""
    reachable = {text for text, _ in reference.reachable_positions()}
    accepted = set()
    for text in reference.all_boards():
        try:
            check_board(Board.from_text(text))
        except IllegalPosition:
            continue
        accepted.add(text)
    assert accepted == reachable


@pytest.mark.parametrize(
    ("rows", "requested", "expected"),
    [
        (("...", "...", "..."), None, Mark.X),
        (("...", "...", "..."), Mark.O, Mark.O),
        (("X..", "...", "..."), None, Mark.O),
        (("X..", "...", "..."), Mark.O, Mark.O),
        (("O..", "...", "..."), None, Mark.X),
        (("XO.", "...", "..."), Mark.O, Mark.O),
        (("XO.", "...", "..."), None, Mark.X),
    ],
)
def test_the_side_with_fewer_marks_moves_else_the_requested_side_else_x(
    rows: tuple[str, str, str], requested: Mark | None, expected: Mark
) -> None:
    assert side_to_move(board(*rows), requested) is expected


def test_asking_the_side_with_more_marks_to_move_is_refused() -> None:
    with pytest.raises(IllegalPosition) as refused:
        side_to_move(board("X..", "...", "..."), Mark.X)
    assert refused.value.reason is Illegality.WRONG_PLAYER
    assert refused.value.about_player
    assert "it is O's turn" in refused.value.detail


def test_the_side_to_move_rule_gives_exactly_the_positions_games_reach() -> None:
    """Every legal unfinished board with every allowed `player`, against a walk of every game."""
    walked = {
        (text, mover)
        for text, mover in reference.reachable_positions()
        if not reference.finished(text)
    }
    derived = set()
    for text, _ in walked:
        for requested in (None, Mark.X, Mark.O):
            try:
                mover = side_to_move(Board.from_text(text), requested)
            except IllegalPosition:
                continue
            derived.add((text, mover.value))
    assert derived == walked


def test_every_code_is_stable_text() -> None:
    assert [reason.code for reason in Illegality] == [
        "play_after_win",
        "both_players_won",
        "mark_count_gap",
        "winner_not_last_to_move",
        "wrong_player",
        "both_players_lost",
        "loser_not_last_to_move",
        "black_moves_first",
    ]


def test_a_single_mark_is_not_called_marks() -> None:
    with pytest.raises(IllegalPosition, match="X has 1 mark and O has 0"):
        side_to_move(board("X..", "...", "..."), Mark.X)
