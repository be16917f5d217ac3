"""A win by fours and threes (a VCT): it holds against every reply, it is exact where it
is short and a bound where it is long, the search and the analysis prove the same, and
it is tried only where every defence is known; and a root move the opponent's threats
refute is not played while another is left."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator

import pytest

from service.game.analysis import analyse
from service.game.board import Board, Mark
from service.game.rules import Rules, Variant
from service.game.search import Method, Search, ThreatLine, search
from service.game.threats import EXACT_RUN_PLIES
from tests import search_reference as brute
from tests.family_reference import Game, other
from tests.helpers import gomoku_board, reference_game
from tests.renju_reference import reference_forbidden

RULES = Rules(9, 9, 5)
STANDARD = Rules(9, 9, 5, variant=Variant.STANDARD)
RENJU = Rules(9, 9, 5, variant=Variant.RENJU)
#: Generous: what is found must not depend on the time it gets, so nodes bound the tests.
TIME = 60.0
NODES = 20_000
#: What a check afresh may spend: it looks for a win the search found with less room.
CHECK_NODES = 1_000_000


def threat_line(
    text: str, mover: str, rules: Rules = RULES, nodes: int = NODES
) -> ThreatLine | None:
    """Return what the threat search finds for `mover`, within `nodes` nodes."""
    board = Board.from_text(text, rules)
    return Search(board, Mark(mover), TIME, max_nodes=nodes)._threat_line()


def wins_by_threes(
    seed: int,
    count: int,
    rules: Rules = RULES,
    game: Game | None = None,
    attacker: str | None = None,
) -> Iterator[tuple[str, str, ThreatLine]]:
    """Yield `count` seeded clustered positions where the threat search finds a win that
    needs threes (no run of fours wins), played by the reference `game` (by default the
    one of the `rules`), for either side to move or only the `attacker`."""
    game = reference_game(rules) if game is None else game
    rng, found = random.Random(seed), 0
    for _ in range(5000):
        position = brute.clustered_position(game, rng, rng.randrange(10, 30))
        if position is None:
            continue
        text, mover = position
        if attacker not in (None, mover):
            continue
        if brute.wins_at_once(game, text, mover) or brute.wins_at_once(game, text, other(mover)):
            continue
        line = threat_line(text, mover, rules)
        if line is not None and line.threes:
            yield text, mover, line
            found += 1
            if found == count:
                return
    raise AssertionError("too few wins by threes")


def escape(game: Game, rules: Rules, text: str, attacker: str) -> int | None:
    """Return a reply of the defender, to move, after which the attacker has no win (by
    its own rules at once, else by the threat search afresh), or None if there is none.
    Every empty cell is tried, not only the threat search's defences; a four of the
    defender's is blocked, and the defender replies again."""
    defender = other(attacker)
    assert not brute.wins_at_once(game, text, defender)
    for reply in brute.empties(text):
        answered = brute.placed(text, reply, defender)
        if brute.wins_at_once(game, answered, attacker):
            continue
        counter = brute.wins_at_once(game, answered, defender)
        if len(counter) >= 2:
            return reply
        if len(counter) == 1:
            blocked = brute.placed(answered, counter[0], attacker)
            if escape(game, rules, blocked, attacker) is not None:
                return reply
        elif threat_line(answered, attacker, rules, nodes=CHECK_NODES) is None:
            return reply
    return None


@pytest.mark.parametrize("rules", [RULES, STANDARD], ids=lambda rules: rules.describe())
@pytest.mark.parametrize("seed", range(4))
def test_every_reply_to_a_win_by_threes_still_loses(rules: Rules, seed: int) -> None:
    """Every cell the defender could answer with, not only the ones the threat search
    defends with: after each, the attacker still has a win. A win of five plies is held
    to brute force: exactly five. In freestyle and in standard (exactly five), whose
    overlines the defences need not stop: an overline spoils only the attacker's own
    line."""
    game = reference_game(rules)
    for text, mover, line in wins_by_threes(seed, 8, rules):
        assert line.plies >= EXACT_RUN_PLIES  # no run of fours, so no win in three
        after = brute.placed(text, line.first, mover)
        assert escape(game, rules, after, mover) is None, (text, mover, line)
        if line.plies == EXACT_RUN_PLIES:
            assert brute.move_wins_within(game, text, mover, line.first, EXACT_RUN_PLIES)


@pytest.mark.parametrize("seed", range(3))
def test_under_renju_every_reply_to_whites_win_by_threes_still_loses(seed: int) -> None:
    """White has no fouls and wins with five or more, and black's fouls only take
    defences away from it: black's every reply tried by the freestyle reference's rules,
    where black may answer anywhere and an overline of its own would win (a four of its
    blocked and every reply tried again), white still wins after each, by the rules at once
    or by the renju threat search afresh."""
    generous_to_black = reference_game(Rules(9, 9, 5))
    for text, mover, line in wins_by_threes(seed, 6, RENJU, generous_to_black, attacker="O"):
        after = brute.placed(text, line.first, mover)
        assert escape(generous_to_black, RENJU, after, mover) is None, (text, line)


#: Under renju black wins only with exactly five, and white with five or more.
BLACK_WINS = reference_game(STANDARD)
WHITE_WINS = reference_game(RULES)


def fouls(text: str) -> set[int]:
    """Return black's forbidden cells on a 9x9 renju board, by the independent judge."""
    return reference_forbidden(Board.from_text(text, RENJU))


def whites_escape(text: str) -> int | None:
    """Return a reply of white's, to move after black's threat, after which black has no
    win, or None if there is none. Every empty cell is tried. Black wins at once only with
    exactly five; a four of white's (five or more) black must block on a cell the
    independent judge finds no foul, and white replies again; else black's win must be
    found afresh by the threat search, and its first move be no foul by the judge."""
    assert not brute.wins_at_once(WHITE_WINS, text, "O")
    for reply in brute.empties(text):
        answered = brute.placed(text, reply, "O")
        if brute.wins_at_once(BLACK_WINS, answered, "X"):
            continue  # a five is never a foul
        counter = brute.wins_at_once(WHITE_WINS, answered, "O")
        if len(counter) >= 2:
            return reply
        if len(counter) == 1:
            if counter[0] in fouls(answered):
                return reply
            if whites_escape(brute.placed(answered, counter[0], "X")) is not None:
                return reply
            continue
        line = threat_line(answered, "X", RENJU, nodes=CHECK_NODES)
        if line is None or line.first in fouls(answered):
            return reply
    return None


@pytest.mark.parametrize("seed", range(4))
def test_under_renju_every_reply_to_blacks_win_by_threes_still_loses(seed: int) -> None:
    """Black's threats and blocks leave out every cell that may be a foul: its first move
    is no foul by the independent judge, and after every reply of white's, on every cell,
    black still wins, at once with exactly five or by a threat search afresh whose first
    move is no foul either (a four of white's blocked on a cell that is no foul, and every
    reply tried again)."""
    for text, mover, line in wins_by_threes(seed, 6, RENJU, WHITE_WINS, attacker="X"):
        assert line.first not in fouls(text), (text, line)
        after = brute.placed(text, line.first, mover)
        assert whites_escape(after) is None, (text, line)


def test_blacks_renju_win_by_threes_is_proven_alike_by_the_search_and_the_analysis() -> None:
    """What the threat search finds for black under renju, `/v1/move`'s search and the
    analysis prove alike, its fouls barred as the engine bars them: the move, with its
    length a bound (`wins_within`) and no score, and the analysis ranks it first."""
    for text, _mover, line in wins_by_threes(0, 3, RENJU, WHITE_WINS, attacker="X"):
        board = Board.from_text(text, RENJU)
        barred = frozenset(fouls(text))
        result = search(board, Mark.X, TIME, max_nodes=NODES, barred=barred)
        assert (result.move, result.method, result.proven) == (line.first, Method.THREATS, True)
        assert (result.score, result.wins_within) == (None, line.plies)
        ranked = analyse(board, Mark.X, TIME, max_nodes=NODES, barred=barred)
        assert (ranked.score, ranked.wins_within) == (None, line.plies)
        assert ranked.moves[0].move == line.first


@pytest.mark.parametrize("rules", [RULES, RENJU], ids=lambda rules: rules.describe())
def test_on_two_threads_the_win_by_threes_found_beside_the_tree_ends_the_search(
    rules: Rules,
) -> None:
    """On two threads the look for a win by threes runs on the helper's position while
    the tree searches: it proves the win one thread proves, the same move and length, and
    stops the tree at once, long before the budget; both positions are handed back."""
    budget = 20.0
    attacker = "O" if rules.variant is Variant.RENJU else None  # white: no fouls to bar
    for text, mover, line in wins_by_threes(1, 3, rules, attacker=attacker):
        board = Board.from_text(text, rules)
        searched = Search(board, Mark(mover), budget, threads=2)
        before = [array.tolist() for array in searched.kernel.state]
        started = time.perf_counter()
        result = searched.run()
        assert time.perf_counter() - started < budget / 2
        assert (result.move, result.method, result.proven) == (line.first, Method.THREATS, True)
        alone = search(board, Mark(mover), TIME, max_nodes=NODES)
        assert (result.score, result.wins_within) == (alone.score, alone.wins_within)
        assert [array.tolist() for array in searched.kernel.state] == before


#: 15x15, X to move: two twos that cross at (7, 7), where X makes two open threes at once.
DOUBLE_THREE = {
    (7, 5): "X", (7, 6): "X", (5, 7): "X", (6, 7): "X",
    (0, 0): "O", (0, 14): "O", (14, 0): "O", (14, 14): "O",
}  # fmt: skip


def test_two_open_threes_at_once_are_a_proven_win_in_five() -> None:
    """No run of fours wins, and one of the two threes is always left to make an open
    four: the search plays the crossing and proves the win, exactly (a win in three would
    be a run of fours); the analysis proves the same and ranks the move first."""
    board = gomoku_board(DOUBLE_THREE)
    result = search(board, Mark.X, TIME, max_nodes=NODES)
    fastest = board.rules.max_score - 5
    assert (result.move, result.method) == (7 * 15 + 7, Method.THREATS)
    assert (result.proven, result.score, result.wins_within) == (True, fastest, None)
    ranked = analyse(board, Mark.X, TIME, max_nodes=NODES)
    assert (ranked.score, ranked.wins_within) == (fastest, None)
    assert (ranked.moves[0].move, ranked.moves[0].score) == (7 * 15 + 7, fastest)


def test_threes_are_not_tried_under_caro() -> None:
    """Under caro a closed end stops a four too: the threat search tries fours alone."""
    board = gomoku_board(DOUBLE_THREE, Rules(15, 15, 5, variant=Variant.CARO))
    assert Search(board, Mark.X, TIME, max_nodes=NODES)._threat_line() is None


def test_under_renju_blacks_double_three_is_a_foul_and_no_win() -> None:
    """The crossing that wins freestyle's black the game is renju's double three: the
    threat search finds no win there (each three alone is stopped), and the search, its
    fouls barred as the engine bars them, plays another move."""
    board = gomoku_board(DOUBLE_THREE, Rules(15, 15, 5, variant=Variant.RENJU))
    forbidden = reference_forbidden(board)
    assert 7 * 15 + 7 in forbidden
    assert Search(board, Mark.X, TIME, max_nodes=NODES)._threat_line() is None
    result = search(board, Mark.X, TIME, max_nodes=NODES, barred=frozenset(forbidden))
    assert result.move not in forbidden
    assert not result.proven


def test_under_renju_whites_double_three_is_a_proven_win() -> None:
    """White's double three is no foul, and black cannot stop both threes: the search
    plays the crossing and proves the win (its length a bound under renju, where a block
    that is black's foul is no block)."""
    as_white = {cell: "O" if mark == "X" else "X" for cell, mark in DOUBLE_THREE.items()}
    board = gomoku_board({**as_white, (0, 7): "X"}, Rules(15, 15, 5, variant=Variant.RENJU))
    result = search(board, Mark.O, TIME, max_nodes=NODES)
    assert (result.move, result.method, result.proven) == (7 * 15 + 7, Method.THREATS, True)
    assert (result.score, result.wins_within) == (None, 5)


def test_a_double_three_wins_in_five_under_the_standard_rule_too() -> None:
    board = gomoku_board(DOUBLE_THREE, Rules(15, 15, 5, variant=Variant.STANDARD))
    result = search(board, Mark.X, TIME, max_nodes=NODES)
    assert (result.move, result.method) == (7 * 15 + 7, Method.THREATS)
    assert (result.score, result.wins_within) == (board.rules.max_score - 5, None)


def test_a_long_win_by_threes_is_proven_as_a_bound_by_the_search_and_the_analysis() -> None:
    """Longer than five plies, a win that needs threes may not be the fastest: no score,
    a bound in `wins_within`, the same in both."""
    text, mover, line = next(
        found for found in wins_by_threes(7, 40) if found[2].plies > EXACT_RUN_PLIES
    )
    board = Board.from_text(text, RULES)
    result = search(board, Mark(mover), TIME, max_nodes=NODES)
    assert (result.move, result.method) == (line.first, Method.THREATS)
    assert (result.proven, result.score, result.wins_within) == (True, None, line.plies)
    ranked = analyse(board, Mark(mover), TIME, max_nodes=NODES)
    assert (ranked.score, ranked.wins_within) == (None, line.plies)
    bounded = [estimate for estimate in ranked.moves if estimate.move == line.first]
    assert [(estimate.score, estimate.wins_within) for estimate in bounded] == [(None, line.plies)]


# --- the root's defence: no move the opponent's threats refute, while another is left ---


def refuted_positions(count: int) -> Iterator[tuple[Board, Mark]]:
    """Yield `count` seeded 15x15 positions where the search bars a root move because
    the opponent wins by threats after it."""
    rules, rng, found = Rules(15, 15, 5), random.Random(3), 0
    game = reference_game(rules)
    for _ in range(2000):
        position = brute.clustered_position(game, rng, rng.randrange(12, 40))
        if position is None:
            continue
        text, mover = position
        board = Board.from_text(text, rules)
        searched = Search(board, Mark(mover), TIME, max_nodes=NODES)
        result = searched.run()
        if result.method is Method.HEURISTIC and searched.barred:
            yield board, Mark(mover)
            found += 1
            if found == count:
                return
    raise AssertionError("too few positions with a refuted root move")


def test_a_root_move_the_opponents_threats_refute_is_not_played() -> None:
    """Each barred move lets the opponent win (its threat search finds the win afresh),
    and the move played is not one of them."""
    for board, mover in refuted_positions(6):
        searched = Search(board, mover, TIME, max_nodes=NODES)
        result = searched.run()
        assert result.move not in searched.barred
        for move in searched.barred:
            after = board.play(move, mover)
            opponent = Search(after, mover.opponent, TIME, max_nodes=NODES)
            assert after.status().is_over is False
            assert opponent._by_the_rules() is not None or opponent._threat_line() is not None


#: 9x9, O to move: the root's check bars four of O's moves before its tree (a reviewer's).
BARRING = "....OOXOX....X.OOX....O.XXX.....OOX.....XXX..X....OO..O.....X..O................."


def test_a_search_that_bars_root_moves_hands_back_its_compiled_position_as_it_found_it() -> None:
    searched = Search(Board.from_text(BARRING, RULES), Mark.O, TIME, max_nodes=6000)
    before = [array.tolist() for array in searched.kernel.state]
    searched.run()
    assert searched.barred  # the record of what the check barred stays
    assert [array.tolist() for array in searched.kernel.state] == before


#: 9x9, X to move: X completes a line at once at 36, and has threes to make besides.
WIN_AT_ONCE = "X....................X.......X.......OO.......X.X......OX.OO....OOX........OX...."


def test_a_win_at_once_is_the_rules_not_a_win_by_threes() -> None:
    assert threat_line(WIN_AT_ONCE, "X") is None
    assert search(Board.from_text(WIN_AT_ONCE, RULES), Mark.X, TIME, max_nodes=NODES).move == 36
