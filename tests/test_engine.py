"""The engine: exact for every legal position, fastest wins and slowest losses, by lookup."""

from __future__ import annotations

import pytest

from service.game.board import Board, GameStatus, Mark
from service.game.engine import Engine, Outcome
from service.game.legality import Illegality, IllegalPosition, check_board, side_to_move
from tests import reference
from tests.helpers import board


def test_the_engine_agrees_with_an_independent_brute_force_everywhere(engine: Engine) -> None:
    """Every legal unfinished position, with either side to move: same score, same best moves."""
    positions = [
        (text, mover)
        for text, mover in reference.reachable_positions()
        if not reference.finished(text)
    ]
    assert len(positions) > 8000
    disagreements = []
    for text, mover in positions:
        evaluation = engine.evaluate(Board.from_text(text), Mark(mover))
        expected_score, expected_moves = reference.perfect_play(text, mover)
        if (evaluation.score, list(evaluation.best_moves)) != (expected_score, expected_moves):
            disagreements.append((text, mover))
    assert disagreements == []


def test_the_engine_plays_the_lowest_best_move_everywhere(engine: Engine) -> None:
    for text, mover in reference.reachable_positions():
        if reference.finished(text):
            continue
        advice = engine.advise(engine.position(Board.from_text(text), Mark(mover)))
        assert advice.evaluation is not None
        assert advice.move == min(advice.evaluation.best_moves)


class TestClassicCounts:
    """The numbers of X-first tic-tac-toe, counted with the service's own rules."""

    @staticmethod
    def walk() -> tuple[set[Board], int]:
        seen: set[Board] = set()

        def games_from(position: Board, mover: Mark) -> int:
            seen.add(position)
            if position.status().is_over:
                return 1
            return sum(
                games_from(position.play(cell, mover), mover.opponent)
                for cell in position.empty_cells()
            )

        return seen, games_from(Board(), Mark.X)

    def test_counts(self) -> None:
        positions, games = self.walk()
        assert len(positions) == 5478
        assert sum(position.status().is_over for position in positions) == 958
        assert games == 255_168

    def test_the_reference_counts_the_same(self) -> None:
        assert len({text for text, _ in reference.reachable_positions("X")}) == 5478
        assert reference.complete_games() == 255_168


@pytest.mark.parametrize(
    ("rows", "player", "move", "score", "outcome", "plies_to_end", "best_moves"),
    [
        (("O.X", "X.X", ".OO"), None, 4, 9, Outcome.WIN, 1, (4,)),
        (("...", "...", "..."), None, 0, 0, Outcome.DRAW, 9, tuple(range(9))),
        (("...", "...", "..."), Mark.O, 0, 0, Outcome.DRAW, 9, tuple(range(9))),
        (("X..", "...", "..."), None, 4, 0, Outcome.DRAW, 8, (4,)),
        (("XX.", "OO.", "..."), Mark.O, 5, 9, Outcome.WIN, 1, (5,)),
        # Depth-blind minimax picks cell 2 here, a win in three plies; 6 wins at once.
        (("OO.", "XO.", ".XX"), None, 6, 9, Outcome.WIN, 1, (6,)),
        # Every move loses; blocking at 2 loses two plies later than giving up at 0.
        (("...", "..X", ".OX"), None, 2, -6, Outcome.LOSS, 4, (2,)),
    ],
)
def test_known_positions(
    engine: Engine,
    rows: tuple[str, str, str],
    player: Mark | None,
    move: int,
    score: int,
    outcome: Outcome,
    plies_to_end: int,
    best_moves: tuple[int, ...],
) -> None:
    advice = engine.advise(engine.position(board(*rows), player))
    assert advice.move == move
    assert advice.evaluation is not None
    assert advice.evaluation.score == score
    assert advice.evaluation.outcome is outcome
    assert advice.evaluation.plies_to_end == plies_to_end
    assert advice.evaluation.best_moves == best_moves


def test_depth_blind_minimax_would_pick_a_slower_win_in_hundreds_of_positions(
    engine: Engine,
) -> None:
    slower = [
        (text, mover)
        for text, mover in reference.reachable_positions("X")
        if not reference.finished(text)
        and reference.best_result(text, mover)[0] == 1
        and reference.plain_minimax_choice(text, mover)
        != engine.advise(engine.position(Board.from_text(text), Mark(mover))).move
    ]
    assert len(slower) >= 200


def test_the_advice_shows_the_position_after_the_move(engine: Engine) -> None:
    advice = engine.advise(engine.position(board("O.X", "X.X", ".OO")))
    assert advice.board == board("O.X", "XXX", ".OO")
    assert advice.status is GameStatus.X_WON
    assert advice.winning_lines == ((3, 4, 5),)
    assert advice.chosen is not None
    assert (advice.chosen.row, advice.chosen.col) == (1, 1)
    assert advice.next_player is None


def test_after_a_move_that_does_not_end_the_game_the_opponent_moves(engine: Engine) -> None:
    advice = engine.advise(engine.position(Board()))
    assert advice.board == board("X..", "...", "...")
    assert advice.status is GameStatus.IN_PROGRESS
    assert advice.next_player is Mark.O


@pytest.mark.parametrize(
    ("rows", "status", "lines"),
    [
        (("XXX", "OO.", "..."), GameStatus.X_WON, ((0, 1, 2),)),
        (("XOX", "XOO", "OXX"), GameStatus.DRAW, ()),
        (("XXX", "XOO", "XOO"), GameStatus.X_WON, ((0, 1, 2), (0, 3, 6))),
    ],
)
def test_a_finished_game_gets_no_move_and_its_final_state(
    engine: Engine, rows: tuple[str, str, str], status: GameStatus, lines: tuple[object, ...]
) -> None:
    advice = engine.advise(engine.position(board(*rows)))
    assert advice.move is None
    assert advice.evaluation is None
    assert advice.chosen is None
    assert advice.board == board(*rows)
    assert advice.status is status
    assert advice.winning_lines == lines
    assert advice.next_player is None


def test_an_impossible_board_is_no_position(engine: Engine) -> None:
    with pytest.raises(IllegalPosition) as refused:
        engine.position(board("XXX", "XX.", "O.."))
    assert refused.value.reason is Illegality.MARK_COUNT_GAP


def test_the_table_scores_exactly_the_positions_either_player_can_reach(engine: Engine) -> None:
    reachable = reference.reachable_positions()
    assert len(reachable) == 10_956
    for text in reference.all_boards():
        for mover in "XO":
            scored = engine.score(Board.from_text(text), Mark(mover)) is not None
            assert scored == ((text, mover) in reachable), (text, mover)


def test_the_engine_knows_its_self_check_position(engine: Engine) -> None:
    assert engine.answers_known_position()


def test_the_engines_fast_legality_check_agrees_with_the_rules_everywhere(engine: Engine) -> None:
    """Every filling of the grid and every `player`: the same side, or the same reason."""
    for text in reference.all_boards():
        board = Board.from_text(text)
        for requested in (None, Mark.X, Mark.O):
            try:
                check_board(board)
                expected: object = side_to_move(board, requested)
            except IllegalPosition as refused:
                expected = refused.reason
            try:
                found: object = engine.position(board, requested).side_to_move
            except IllegalPosition as refused:
                found = refused.reason
            assert found == expected, (text, requested)
