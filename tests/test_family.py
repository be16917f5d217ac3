"""The m,n,k family in the game package: rules as data, legality, and exact solved tables.

Every member small enough to walk (at most nine cells: 93 games) is held, position by
position, to the independent reference in tests/family_reference.py; the larger ones to a
forward solve, and 4x4 to the facts known about it. The standard variant (exactly k in a
row) has its own table wherever an overline fits on the board, caro (exactly k, not closed
at both ends) wherever a line fits with both its ends on the board.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np
import numpy.typing as npt
import pytest

from service.game.board import Board, GameStatus, Mark
from service.game.engine import Engine
from service.game.legality import Illegality, IllegalPosition, check_board
from service.game.rules import (
    CLASSIC,
    FAMILY,
    InvalidRules,
    Rules,
    RulesProblem,
    Variant,
    line_ends,
    winning_lines,
)
from service.game.table import UNREACHABLE, Encoding, place_of, solve
from tests.family_reference import solve_every_position
from tests.helpers import reference_game

#: Small enough to hold every board and every move to the string-walking reference.
SMALL = [rules for rules in FAMILY if rules.cell_count <= 9]
#: The rest, 3x4, 4x3 and 4x4: every position held to a forward solve of every game.
LARGE = [rules for rules in FAMILY if rules.cell_count > 9]


def name(value: object) -> str:
    """Name a test case by its rules, e.g. 4x4k3-misere."""
    if not isinstance(value, Rules):
        return str(value)
    kind = "-misere" if value.misere else ""
    if value.variant is not Variant.FREESTYLE:
        kind = f"-{value.variant.value}"
    return f"{value.rows}x{value.cols}k{value.k}{kind}"


# --- the rules ---


def test_the_family_up_to_4x4_has_100_members_19_standard_games_and_7_caro() -> None:
    count = {variant: sum(rules.variant is variant for rules in FAMILY) for variant in Variant}
    assert len(FAMILY) == len(set(FAMILY)) == sum(count.values())
    # Renju needs a board of 5x5 at least: no game of the tables.
    assert count == {
        Variant.FREESTYLE: 100,
        Variant.STANDARD: 19,
        Variant.CARO: 7,
        Variant.RENJU: 0,
    }
    assert (len(SMALL), len(LARGE)) == (93, 33)


def test_the_standard_variant_has_a_table_of_its_own_exactly_where_an_overline_fits() -> None:
    for rows, cols in itertools.product(range(1, 5), repeat=2):
        for k in range(1, max(rows, cols) + 1):
            standard = Rules(rows, cols, k, variant=Variant.STANDARD)
            overline_fits = 1 < k < max(rows, cols)
            assert (standard in FAMILY) is overline_fits
            assert standard.same_game == (standard if overline_fits else Rules(rows, cols, k))


def test_caro_has_a_table_of_its_own_exactly_where_a_line_fits_with_both_ends() -> None:
    for rows, cols in itertools.product(range(1, 5), repeat=2):
        for k in range(1, max(rows, cols) + 1):
            caro = Rules(rows, cols, k, variant=Variant.CARO)
            both_ends_fit = 1 < k < max(rows, cols) - 1
            assert (caro in FAMILY) is both_ends_fit
            if not both_ends_fit:
                assert caro.same_game == Rules(rows, cols, k, variant=Variant.STANDARD).same_game


def test_a_line_s_ends_are_the_cells_just_beyond_it_on_the_board() -> None:
    rules = Rules(3, 4, 3)  # rows of four, columns and diagonals of three
    ends = dict(zip(rules.lines, line_ends(3, 4, 3), strict=True))
    assert ends[(0, 1, 2)] == (3,)
    assert ends[(1, 2, 3)] == (0,)
    assert ends[(5, 6, 7)] == (4,)
    assert ends[(0, 4, 8)] == ends[(0, 5, 10)] == ends[(3, 6, 9)] == ()
    assert dict(zip(Rules(4, 4, 2).lines, line_ends(4, 4, 2), strict=True))[(5, 10)] == (0, 15)


@pytest.mark.parametrize("variant", [Variant.STANDARD, Variant.CARO])
def test_misere_is_refused_with_any_variant_but_freestyle(variant: Variant) -> None:
    with pytest.raises(InvalidRules) as refused:
        Rules(4, 4, 3, misere=True, variant=variant)
    assert refused.value.problem is RulesProblem.VARIANT_WITH_MISERE
    assert refused.value.field == "variant"


@pytest.mark.parametrize(
    ("rules", "count"),
    [(CLASSIC, 8), (Rules(4, 4, 4), 10), (Rules(4, 4, 3), 24), (Rules(4, 4, 2), 42),
     (Rules(4, 4, 1), 16), (Rules(3, 4, 4), 3), (Rules(1, 4, 2), 3), (Rules(2, 3, 3), 2)],
    ids=name,
)  # fmt: skip
def test_the_lines_are_every_run_of_k_cells(rules: Rules, count: int) -> None:
    assert len(rules.lines) == count
    assert all(len(line) == rules.k and list(line) == sorted(line) for line in rules.lines)
    assert list(rules.lines) == sorted(set(rules.lines))


def test_the_classic_lines_are_the_eight_of_tic_tac_toe() -> None:
    assert winning_lines(3, 3, 3) == (
        (0, 1, 2), (0, 3, 6), (0, 4, 8), (1, 4, 7), (2, 4, 6), (2, 5, 8), (3, 4, 5), (6, 7, 8),
    )  # fmt: skip


def test_a_4x4_board_has_diagonal_runs_of_three_off_the_main_diagonals() -> None:
    lines = set(Rules(4, 4, 3).lines)
    assert {(1, 6, 11), (4, 9, 14), (2, 5, 8), (7, 10, 13)} <= lines


@pytest.mark.parametrize(
    ("arguments", "problem", "words"),
    [
        ((0, 3, 1), RulesProblem.ROWS_OUT_OF_RANGE, "rows is 0, but a board has 1 to 20 rows"),
        ((21, 3, 3), RulesProblem.ROWS_OUT_OF_RANGE, "rows is 21"),
        ((3, 0, 1), RulesProblem.COLS_OUT_OF_RANGE, "cols is 0, but a board has 1 to 20 columns"),
        ((3, 21, 3), RulesProblem.COLS_OUT_OF_RANGE, "cols is 21"),
        ((3, 3, 4), RulesProblem.K_OUT_OF_RANGE, "on a 3x3 board a line is 1 to 3 cells long"),
        ((2, 4, 0), RulesProblem.K_OUT_OF_RANGE, "k is 0"),
    ],
)
def test_rules_outside_the_family_are_refused_with_a_reason(
    arguments: tuple[int, int, int], problem: RulesProblem, words: str
) -> None:
    with pytest.raises(InvalidRules, match=words) as refused:
        Rules(*arguments)
    assert refused.value.problem is problem


def test_k_defaults_to_the_shorter_side_or_five() -> None:
    assert Rules.of(15, 15) == Rules(15, 15, 5)
    assert Rules.of(7, 3) == Rules(7, 3, 3)
    assert Rules.of(4, 4) == Rules(4, 4, 4)
    assert Rules.of(3, 4) == Rules(3, 4, 3)
    assert Rules.of(4, 4, 3, misere=True) == Rules(4, 4, 3, True)


# --- the board and the status of a game ---


@pytest.mark.parametrize(
    ("rules", "text", "status"),
    [
        (Rules(4, 4, 3), "XXX.OO..........", GameStatus.X_WON),
        (Rules(4, 4, 3, misere=True), "XXX.OO..........", GameStatus.O_WON),
        (Rules(4, 4, 4), "XXX.OOO.........", GameStatus.IN_PROGRESS),
        (Rules(2, 2, 1, misere=True), "O...", GameStatus.X_WON),
        (Rules(1, 3, 3), "XOX", GameStatus.DRAW),
        # The standard variant: exactly k; an overline, in any direction, does not count.
        (Rules(1, 4, 3, variant=Variant.STANDARD), "XXXO", GameStatus.X_WON),
        (Rules(1, 4, 3, variant=Variant.STANDARD), "XXXX", GameStatus.DRAW),
        (Rules(4, 4, 3, variant=Variant.STANDARD), "XXXXOO.OO.......", GameStatus.IN_PROGRESS),
        (Rules(4, 4, 3, variant=Variant.STANDARD), "X...OX..O.X....X", GameStatus.IN_PROGRESS),
        (Rules(4, 4, 3, variant=Variant.STANDARD), "X...OX..O.X.....", GameStatus.X_WON),
        (Rules(4, 4, 3, variant=Variant.STANDARD), "XXXXOOO.O.......", GameStatus.O_WON),
        # Caro: exactly k, unless the opponent holds both ends; the edge closes none.
        (Rules(1, 4, 2, variant=Variant.CARO), "OXXO", GameStatus.DRAW),
        (Rules(1, 4, 2, variant=Variant.CARO), "XXO.", GameStatus.X_WON),
        (Rules(1, 4, 2, variant=Variant.CARO), "OXX.", GameStatus.X_WON),
        (Rules(1, 4, 2, variant=Variant.STANDARD), "OXXO", GameStatus.X_WON),
    ],
    ids=lambda value: value if isinstance(value, str) else "",
)
def test_a_line_wins_for_its_owner_and_under_misere_for_the_other(
    rules: Rules, text: str, status: GameStatus
) -> None:
    assert Board.from_text(text, rules).status() is status


def test_a_board_has_as_many_cells_as_its_rules_say() -> None:
    with pytest.raises(ValueError, match="a 4x4 board has 16 cells, not 9"):
        Board((None,) * 9, Rules(4, 4, 4))
    assert len(Board.empty(Rules(3, 4, 3)).cells) == 12


# --- legality: a board is legal iff a walk of every game reaches it ---


@pytest.mark.parametrize("rules", SMALL, ids=name)
def test_the_legality_rules_are_exactly_the_boards_play_reaches(rules: Rules) -> None:
    """In caro, a board cannot show whether a line closed at both ends was closed before it
    was completed: the rules accept every board play reaches, and the table tells the rest."""
    reached = {text for text, _ in reference_game(rules).reachable()}
    engine = Engine({rules: solve(rules)})
    for cells in itertools.product("XO.", repeat=rules.cell_count):
        text = "".join(cells)
        board = Board.from_text(text, rules)
        assert _legal(check_board, board) == (text in reached) or (
            rules.variant is Variant.CARO and text not in reached
        ), text
        assert _legal(engine.position, board) == (text in reached), text


def _legal(check: Callable[[Board], object], board: Board) -> bool:
    try:
        check(board)
    except IllegalPosition:
        return False
    return True


@pytest.mark.parametrize(
    ("rules", "text", "reason"),
    [
        # Boards as four rows of four; each breaks one rule on 4x4 with three in a row.
        (Rules(4, 4, 3), "XXXO/O.O./XXX./O.O.", Illegality.PLAY_AFTER_WIN),
        (Rules(4, 4, 3, misere=True), "XXX./OOO./..../....", Illegality.BOTH_PLAYERS_LOST),
        (Rules(4, 4, 3), "XXX./OOO./..../....", Illegality.BOTH_PLAYERS_WON),
        (Rules(4, 4, 3, misere=True), "XXX./OO../O.../.O..", Illegality.LOSER_NOT_LAST_TO_MOVE),
        (Rules(4, 4, 3), "XXX./OO../O.../.O..", Illegality.WINNER_NOT_LAST_TO_MOVE),
        # Three lines of three that meet pairwise but not in one cell: three last moves.
        (Rules(4, 4, 3), "XXXO/XX.O/X.O./O.OO", Illegality.PLAY_AFTER_WIN),
    ],
)
def test_each_broken_rule_has_its_own_code(rules: Rules, text: str, reason: Illegality) -> None:
    with pytest.raises(IllegalPosition) as refused:
        check_board(Board.from_text(text.replace("/", ""), rules))
    assert refused.value.reason is reason


# --- the solved tables ---


@pytest.mark.parametrize("rules", SMALL, ids=name)
def test_the_table_scores_exactly_the_reachable_positions_as_the_reference_does(
    rules: Rules,
) -> None:
    """Every reachable position's score and best moves; nothing unreachable is scored."""
    game = reference_game(rules)
    engine = Engine({rules: solve(rules)})
    table = solve(rules)
    reachable = game.reachable()
    places = {place_of(Board.from_text(text, rules), Mark(mover)) for text, mover in reachable}
    assert set(np.flatnonzero(table != UNREACHABLE).tolist()) == places
    for text, mover in reachable:
        if game.finished(text):
            continue
        evaluation = engine.evaluate(Board.from_text(text, rules), Mark(mover))
        assert (evaluation.score, list(evaluation.best_moves)) == game.perfect_play(text, mover)


@pytest.mark.slow
@pytest.mark.parametrize("rules", LARGE, ids=name)
def test_every_position_of_the_larger_games_scores_as_a_forward_solve_does(rules: Rules) -> None:
    """All of 3x4, 4x3 and 4x4: every position a game with X starting reaches, none else."""
    solved = solve_every_position(reference_game(rules))
    table = solve(rules)
    assert int(np.count_nonzero(table != UNREACHABLE)) == len(solved)
    x_cells = np.fromiter((x for x, _ in solved), dtype=np.int64, count=len(solved))
    o_cells = np.fromiter((o for _, o in solved), dtype=np.int64, count=len(solved))
    results = np.fromiter((result for result, _ in solved.values()), np.int64, len(solved))
    plies = np.fromiter((plies for _, plies in solved.values()), np.int64, len(solved))
    del solved
    encoding = Encoding(rules)
    x_moves = encoding.popcount[x_cells] == encoding.popcount[o_cells]
    places = np.where(x_moves, encoding.place(x_cells, o_cells), encoding.place(o_cells, x_cells))
    top = rules.max_score
    expected = np.where(results > 0, top - plies, np.where(results < 0, plies - top, 0))
    assert np.array_equal(table[places].astype(np.int64), expected)


def test_4x4_four_in_a_row_reaches_the_known_number_of_boards_and_is_a_draw() -> None:
    """9,722,011 boards with X starting, 659,392 of them finished; a draw, every first move."""
    rules = Rules(4, 4, 4)
    table = solve(rules)
    # Each reachable entry is one board with X starting: equal counts put X to move.
    assert int(np.count_nonzero(table != UNREACHABLE)) == 9_722_011
    won = int(np.count_nonzero(np.abs(table.astype(np.int16)) == rules.max_score))
    assert won + _full_board_draws(rules, table) == 659_392
    engine = Engine({rules: table})
    empty = Board.empty(rules)
    assert engine.evaluate(empty, Mark.X).score == 0
    assert set(engine.move_scores(empty, Mark.X).values()) == {0}


def test_4x4_three_in_a_row_is_a_first_player_win() -> None:
    rules = Rules(4, 4, 3)
    engine = Engine({rules: solve(rules)})
    assert max(engine.move_scores(Board.empty(rules), Mark.X).values()) > 0


def _full_board_draws(rules: Rules, table: npt.NDArray[np.int8]) -> int:
    """Count the full boards without a line that play reaches."""
    encoding = Encoding(rules)
    full = (1 << rules.cell_count) - 1
    mover = np.arange(full + 1, dtype=np.int64)
    places = encoding.place(mover, full ^ mover)
    drawn = ~encoding.has_line[mover] & ~encoding.has_line[full ^ mover]
    return int(np.count_nonzero(table[places[drawn]] != UNREACHABLE))
