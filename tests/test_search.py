"""The search for boards beyond the tables: its tactics, held to an independent brute force;
every claim it calls proven, held to the tables or to exhaustive play; its budget."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.game.analysis import Ranking, analyse
from service.game.board import Board, Mark
from service.game.compiled.kernel import HEURISTIC_LIMIT
from service.game.engine import Engine
from service.game.geometry import window_weights
from service.game.rules import Rules, Variant
from service.game.search import EXACT_EMPTY_CELLS, Method, Search, search
from tests import search_reference as brute
from tests.family_reference import Game, other
from tests.helpers import gomoku_board, reference_game
from tests.strategies import family_positions

#: Boards of the kinds people play, and a few odd ones: wide, narrow, short lines.
BIG_GAMES = [
    Rules(15, 15, 5),
    Rules(9, 9, 5),
    Rules(7, 7, 5),
    Rules(7, 7, 4),
    Rules(5, 5, 4),
    Rules(6, 9, 4),
    Rules(5, 12, 3),
    # Exactly k in a row: an overline neither wins nor threatens.
    Rules(9, 9, 5, variant=Variant.STANDARD),
    Rules(6, 9, 4, variant=Variant.STANDARD),
]
#: Generous: the tactics must not depend on the time they get, so nodes bound the tests.
TIME = 60.0
NODES = 3000


def positions_where(predicate: str, count: int, seed: int = 1) -> Iterator[tuple[Rules, str, str]]:
    """Yield `count` clustered positions of the big games for which `predicate` holds."""
    rng = random.Random(seed)
    found = 0
    for attempt in itertools.count():
        rules = BIG_GAMES[attempt % len(BIG_GAMES)]
        game = reference_game(rules)
        position = brute.clustered_position(game, rng, rng.randrange(4, 2 * rules.k + 12))
        if position is None:
            continue
        text, mover = position
        if _holds(predicate, game, text, mover):
            yield rules, text, mover
            found += 1
            if found == count:
                return


def _holds(predicate: str, game: Game, text: str, mover: str) -> bool:
    own = brute.wins_at_once(game, text, mover)
    theirs = brute.wins_at_once(game, text, other(mover))
    if predicate == "win_in_one":
        return bool(own)
    if predicate == "lone_threat":
        return not own and len(theirs) == 1
    if predicate == "two_threats":
        return not own and len(theirs) >= 2
    if predicate == "win_in_three":
        return (
            not own
            and not theirs
            and any(brute.wins_in_three(game, text, mover, m) for m in brute.empties(text))
        )
    raise ValueError(predicate)


def searched(rules: Rules, text: str, mover: str) -> tuple[int, bool, int | None, Method]:
    result = search(Board.from_text(text, rules), Mark(mover), TIME, max_nodes=NODES)
    return result.move, result.proven, result.score, result.method


@pytest.mark.parametrize(
    ("rules", "text", "mover"), list(positions_where("win_in_one", 40)), ids=lambda v: str(v)[:20]
)
def test_a_win_in_one_is_never_missed(rules: Rules, text: str, mover: str) -> None:
    move, proven, score, _ = searched(rules, text, mover)
    assert brute.completes(reference_game(rules), text, move, mover)
    assert (proven, score) == (True, rules.max_score - 1)


@pytest.mark.parametrize(
    ("rules", "text", "mover"), list(positions_where("lone_threat", 40)), ids=lambda v: str(v)[:20]
)
def test_a_lone_threat_is_always_blocked_when_no_win_comes_first(
    rules: Rules, text: str, mover: str
) -> None:
    move, _, _, _ = searched(rules, text, mover)
    assert [move] == brute.wins_at_once(reference_game(rules), text, other(mover))


@pytest.mark.parametrize(
    ("rules", "text", "mover"), list(positions_where("two_threats", 20)), ids=lambda v: str(v)[:20]
)
def test_two_threats_are_a_proven_loss_in_two(rules: Rules, text: str, mover: str) -> None:
    move, proven, score, method = searched(rules, text, mover)
    assert (proven, score, method) == (True, 2 - rules.max_score, Method.RULES)
    assert move in brute.wins_at_once(reference_game(rules), text, other(mover))


@pytest.mark.parametrize(
    ("rules", "text", "mover"), list(positions_where("win_in_three", 25)), ids=lambda v: str(v)[:20]
)
def test_every_win_in_three_is_found_and_proven(rules: Rules, text: str, mover: str) -> None:
    move, proven, score, method = searched(rules, text, mover)
    assert brute.wins_in_three(reference_game(rules), text, mover, move)
    assert (proven, score, method) == (True, rules.max_score - 3, Method.THREATS)


# --- Every proven claim, held to the exact tables of every game up to 4x4 ---


@given(position=family_positions(unfinished=True), budget=st.sampled_from([200, 3000]))
@settings(max_examples=300)
def test_every_proven_claim_agrees_with_the_tables(
    engine: Engine, position: tuple[Board, Mark], budget: int
) -> None:
    board, mover = position
    result = search(board, mover, TIME, max_nodes=budget)
    assert result.move in board.empty_cells()
    table = engine.move_scores(board, mover)
    best = max(table.values())
    if not result.proven:
        assert result.score is None
        return
    if result.wins_within is not None:
        # A run of fours of seven plies or more: the move wins that fast or faster, and
        # another move may win faster still, so no score is claimed.
        assert (result.score, result.method) == (None, Method.THREATS)
        assert table[result.move] >= board.rules.max_score - result.wins_within > 0
        return
    assert result.score == best == table[result.move]


@given(position=family_positions(unfinished=True), budget=st.sampled_from([200, 3000]))
@settings(max_examples=300)
def test_every_proven_claim_of_an_analysis_agrees_with_the_tables(
    engine: Engine, position: tuple[Board, Mark], budget: int
) -> None:
    """A ranked move's score is its exact value; the position's is the best move's."""
    board, mover = position
    ranked = analyse(board, mover, TIME, max_nodes=budget)
    table = engine.move_scores(board, mover)
    max_score, best = board.rules.max_score, max(table.values())
    for estimate in ranked.moves:
        if estimate.wins_within is not None:
            assert (estimate.proven, estimate.score) == (True, None)
            assert table[estimate.move] >= max_score - estimate.wins_within > 0
        elif estimate.proven:
            assert estimate.score == table[estimate.move]
        else:
            assert estimate.score is None
    if ranked.score is not None:
        assert ranked.score == best == table[ranked.moves[0].move]
    if ranked.wins_within is not None:
        assert ranked.score is None
        assert table[ranked.moves[0].move] >= max_score - ranked.wins_within > 0


def test_with_few_empty_cells_a_run_of_fours_gives_way_to_the_exact_value(
    engine: Engine,
) -> None:
    """4x4, four in a row, O to move: the shortest run of fours takes seven plies, and the
    tables' fastest win five, which the exact search finds (8 empty cells)."""
    board = Board.from_text("O...X.OXXO...X.O", Rules(4, 4, 4))
    table = engine.move_scores(board, Mark.O)
    fastest = board.rules.max_score - 5
    assert max(table.values()) == fastest
    run_of_fours = Search(board, Mark.O, TIME)._threat_line()
    assert run_of_fours is not None
    assert (run_of_fours.plies, run_of_fours.threes) == (7, False)
    result = search(board, Mark.O, TIME)
    assert (result.proven, result.score, result.wins_within) == (True, fastest, None)
    assert (result.method, result.optimal, table[result.move]) == (Method.EXACT, True, fastest)
    ranked = analyse(board, Mark.O, TIME)
    assert (ranked.score, ranked.wins_within) == (fastest, None)


@given(position=family_positions(unfinished=True))
@settings(max_examples=200)
def test_a_search_and_an_analysis_prove_the_same(position: tuple[Board, Mark]) -> None:
    """Given the time they need, what the one proves the other proves, and the analysis
    ranks the move a search proves to win."""
    board, mover = position
    result = search(board, mover, TIME)
    ranked = analyse(board, mover, TIME)
    assert (ranked.proven, ranked.score, ranked.wins_within) == (
        result.proven,
        result.score,
        result.wins_within,
    )
    if result.proven and (result.score is None or result.score > 0):
        assert {estimate.move: estimate.proven for estimate in ranked.moves}[result.move]


@given(position=family_positions(unfinished=True))
@settings(max_examples=150)
def test_eight_empty_cells_or_fewer_are_solved_exactly_up_to_4x4(
    engine: Engine, position: tuple[Board, Mark]
) -> None:
    board, mover = position
    if len(board.empty_cells()) > EXACT_EMPTY_CELLS:
        return
    result = search(board, mover, TIME)
    assert result.proven
    assert result.score == engine.evaluate(board, mover).score
    assert result.move in engine.evaluate(board, mover).best_moves or (
        engine.move_scores(board, mover)[result.move] == result.score
    )


@pytest.mark.parametrize(
    "rules",
    [
        Rules(5, 5, 4),
        Rules(6, 6, 4),
        Rules(5, 7, 3, misere=True),
        Rules(5, 5, 3, variant=Variant.STANDARD),
        Rules(6, 6, 4, variant=Variant.STANDARD),
        Rules(5, 5, 3, variant=Variant.CARO),
        Rules(6, 6, 4, variant=Variant.CARO),
    ],
    ids=lambda rules: rules.describe(),
)
@pytest.mark.parametrize("seed", range(4))
def test_eight_empty_cells_or_fewer_are_solved_exactly_on_bigger_boards(
    rules: Rules, seed: int
) -> None:
    """Against exhaustive play by the independent reference, misère, standard and caro
    included."""
    game = reference_game(rules)
    rng = random.Random(seed)
    while True:
        position = brute.clustered_position(game, rng, rules.cell_count - EXACT_EMPTY_CELLS)
        if position is not None:
            break
    text, mover = position
    reference_score, best_moves = game.perfect_play(text, mover)
    result = search(Board.from_text(text, rules), Mark(mover), TIME)
    assert (result.proven, result.score) == (True, reference_score)
    assert result.move in best_moves


@pytest.mark.parametrize("rules", [Rules(5, 5, 4), Rules(5, 7, 3, misere=True)])
@pytest.mark.parametrize("seed", range(3))
def test_an_exact_search_stays_exact_when_its_table_overflows(rules: Rules, seed: int) -> None:
    """A table of four slots forgets nearly everything: the proof only takes longer."""
    game = reference_game(rules)
    rng = random.Random(seed + 100)
    while True:
        position = brute.clustered_position(game, rng, rules.cell_count - EXACT_EMPTY_CELLS)
        if position is not None:
            break
    text, mover = position
    reference_score, best_moves = game.perfect_play(text, mover)
    result = Search(Board.from_text(text, rules), Mark(mover), TIME, table_slots=4).run()
    assert (result.proven, result.score) == (True, reference_score)
    assert result.move in best_moves


# --- Misère on big boards: never lose at once when another move does not ---


@pytest.mark.parametrize("seed", range(30))
def test_under_misere_no_move_completes_its_own_line_needlessly(seed: int) -> None:
    rules = [Rules(7, 7, 4, misere=True), Rules(9, 9, 5, misere=True)][seed % 2]
    game = reference_game(rules)
    position = brute.clustered_position(game, random.Random(seed), 20 + seed)
    if position is None:
        return
    text, mover = position
    free = brute.empties(text)
    losing = {cell for cell in free if brute.completes(game, text, cell, mover)}
    result = search(Board.from_text(text, rules), Mark(mover), TIME, max_nodes=NODES)
    if len(losing) < len(free):
        assert result.move not in losing


#: The issue's position: 15x15, three in a row, misère, X to move. X has more than 16 cells
#: that complete its own line, the 16 of highest promise were all of them, and the search
#: played one (cell 94) with 13 cells safe.
CROWDED_MISERE = (
    "O.OOXXOXXOX..XXXX.XX.OOXXOO.OO.OO.OOXX.OO..OOO.XX.OO.XX.XX..XXOOXX...OOXOO.OO.OO..XX.OO"
    ".XXX.XX.XX.XX....XXOO.OOXXOO.XXOOOOXOO....XXOOXX.....XXO.OOXXOOX.XXO.OO.XXOO.XOXX.XX.XXOO"
    ".XXO.OO.OOXOXX...XXX.XX..OO.OO.OO.XOXOOXX.XXOO.OO"
)


def crowded_misere_position(seed: int) -> tuple[str, str]:
    """Return a 15x15 misère (three in a row) position reached by random play that never
    completes a line while it can help it, stopped once the mover has more than 16 cells that
    would complete its own line (the candidates a heuristic node keeps) and a safe cell."""
    game = reference_game(Rules(15, 15, 3, misere=True))
    rng = random.Random(seed)
    text, mover = "." * 225, "X"
    while True:
        free = brute.empties(text)
        losing = {cell for cell in free if brute.completes(game, text, cell, mover)}
        if 16 < len(losing) < len(free):
            return text, mover
        safe = [cell for cell in free if cell not in losing]
        if not safe:
            text, mover = "." * 225, "X"  # a dead end: start again
            continue
        text, mover = brute.placed(text, rng.choice(safe), mover), other(mover)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("nodes", [40, 3000])
def test_under_misere_a_crowd_of_losing_cells_never_crowds_out_the_safe_ones(
    seed: int, nodes: int
) -> None:
    rules = Rules(15, 15, 3, misere=True)
    text, mover = (CROWDED_MISERE, "X") if seed == 0 else crowded_misere_position(seed)
    game = reference_game(rules)
    free = brute.empties(text)
    losing = {cell for cell in free if brute.completes(game, text, cell, mover)}
    assert len(losing) > 16
    board = Board.from_text(text, rules)
    result = search(board, Mark(mover), TIME, max_nodes=nodes)
    assert result.move not in losing
    ranked = analyse(board, Mark(mover), TIME, max_nodes=nodes)
    assert ranked.moves[0].move not in losing


# --- The budget ---


@pytest.mark.parametrize("node_limit", [60, 400, 2000, 8000])
def test_a_search_stopped_by_its_limit_reports_its_last_finished_depth(
    node_limit: int,
) -> None:
    """Cut anywhere in a depth, the search reports the depth before it and that depth's
    evaluation: a limit that stops it anywhere later in that same next depth changes
    neither (the move may change: the next test)."""
    board = Board.empty(Rules(15, 15, 5)).play(112, Mark.X).play(113, Mark.O)
    result = search(board, Mark.X, TIME, max_nodes=node_limit)
    assert (result.method, result.proven) == (Method.HEURISTIC, False)
    assert result.depth >= 1
    assert result.nodes <= node_limit + 1
    assert result.move in board.empty_cells()
    later = [search(board, Mark.X, TIME, max_nodes=node_limit + extra) for extra in (1, 7, 29)]
    for other_cut in later:
        if other_cut.depth == result.depth:
            assert other_cut.evaluation == result.evaluation
    deeper = search(board, Mark.X, TIME, max_nodes=4 * node_limit)
    assert deeper.depth > result.depth


def test_a_depth_cut_short_plays_the_best_move_it_has_shown() -> None:
    """As the node limit grows within one depth, the move played there is the one the cut
    depth has shown best so far: first the last depth's choice, which it searches first,
    then a move worth more at the new depth, from the moment its null window shows it
    better (worth more than the best before it: a bound) while its full search goes on,
    whose value then rises to what that search finds; back to the best before it if that
    search does not keep the null window's promise. Each happens here."""
    board = Board.empty(Rules(15, 15, 5)).play(112, Mark.X).play(113, Mark.O)
    cuts = []
    for node_limit in range(100, 18_000, 61):
        cut = Search(board, Mark.X, TIME, max_nodes=node_limit)
        result = cut.run()
        best_so_far, its_value = int(cut.kernel.limits[3]), int(cut.kernel.limits[4])
        if best_so_far >= 0:
            assert result.move == best_so_far
        cuts.append((result.depth, best_so_far, its_value))
    changed = raised = 0
    shown: set[tuple[int, int, int]] = set()
    for (depth, move, value), (next_depth, next_move, next_value) in itertools.pairwise(cuts):
        shown.add((depth, move, value))
        if depth == next_depth and move >= 0 and next_move >= 0:
            if next_move == move:
                assert next_value >= value
                raised += next_value > value
            elif next_value > value:
                changed += 1
            else:  # a promise not kept: the best before it, as it was
                assert (next_depth, next_move, next_value) in shown
    assert changed > 0
    assert raised > 0


def test_the_same_position_and_node_budget_give_the_same_answer() -> None:
    board = Board.empty(Rules(9, 9, 5)).play(40, Mark.X).play(41, Mark.O).play(31, Mark.X)
    first = search(board, Mark.O, TIME, max_nodes=2000)
    second = search(board, Mark.O, TIME, max_nodes=2000)
    assert (first.move, first.depth, first.nodes, first.evaluation) == (
        second.move,
        second.depth,
        second.nodes,
        second.evaluation,
    )


def test_a_heuristic_value_is_never_called_proven() -> None:
    result = search(Board.empty(Rules(15, 15, 5)), Mark.X, TIME, max_nodes=500)
    assert (result.proven, result.score) == (False, None)
    assert -1 < result.evaluation < 1
    assert result.move == 112  # the centre, on an empty board


def patterned_endgame(rules: Rules, seed: int) -> Board:
    """A full 15x15 board in a pattern with no three in a row, then 8 random cells emptied
    so that X moves: every empty cell may now make or break a line."""
    marks = [
        "X" if (row + 2 * col) % 4 in (0, 1) else "O" for row in range(15) for col in range(15)
    ]
    xs = [cell for cell, mark in enumerate(marks) if mark == "X"]
    os = [cell for cell, mark in enumerate(marks) if mark == "O"]
    from_x = (len(xs) - len(os) + EXACT_EMPTY_CELLS) // 2
    rng = random.Random(seed)
    for cell in rng.sample(xs, from_x) + rng.sample(os, EXACT_EMPTY_CELLS - from_x):
        marks[cell] = "."
    return Board.from_text("".join(marks), rules)


@pytest.mark.parametrize(
    "rules", [Rules(15, 15, 5), Rules(15, 15, 4), Rules(15, 15, 3, misere=True)]
)
@pytest.mark.parametrize("seed", range(3))
def test_eight_empty_cells_on_15x15_are_solved_exactly_in_few_nodes(
    rules: Rules, seed: int
) -> None:
    """Exact within the default budget: a node bound stands in for the clock (about 10 ms
    for these 500 nodes here; docs/SEARCH.md)."""
    board = patterned_endgame(rules, seed)
    if board.status().is_over:
        return
    result = search(board, Mark.X, TIME, max_nodes=5000)
    assert result.proven
    assert result.method in (Method.EXACT, Method.RULES, Method.THREATS)


#: 9x9, five in a row, X to move: X has many fours to try and no win by them (2,398 nodes).
MANY_FOURS = ".....OXOO....OO.OX...O...XX.......X......XOX.........X........X..O..............."


@pytest.mark.parametrize("node_limit", range(5, 2400, 97))
def test_a_threat_search_out_of_time_leaves_the_position_as_it_found_it(node_limit: int) -> None:
    """The search goes on after it (with what time is left), so it must see the same board."""
    board = Board.from_text(MANY_FOURS, Rules(9, 9, 5))
    found = Search(board, Mark.X, TIME, max_nodes=node_limit)
    before = _snapshot(found)
    assert found._threat_line() is None
    assert _snapshot(found) == before


def _snapshot(found: Search) -> list[object]:
    """Return everything a search plays its moves on: its root position, and its compiled
    state."""
    position = found.position
    return [
        list(position.cells),
        [list(counts) for counts in position.counts],
        sorted(position.free),
        [sorted(fours) for fours in position.fours],
        *(array.tolist() for array in found.kernel.state),
    ]


@pytest.mark.parametrize("node_limit", [3, 40, 300, 1500, 6000])
@pytest.mark.parametrize("rank", [False, True], ids=["search", "analysis"])
def test_a_search_stopped_anywhere_leaves_its_position_as_it_found_it(
    node_limit: int, rank: bool
) -> None:
    """Cut by its node limit in the threat search, the exact search or the heuristic one,
    a search or an analysis hands back the board it was given."""
    boards = [
        Board.from_text(MANY_FOURS, Rules(9, 9, 5)),
        patterned_endgame(Rules(15, 15, 5), 1),
        patterned_endgame(Rules(15, 15, 3, misere=True), 2),
    ]
    for board in boards:
        kind = Ranking if rank else Search
        found = kind(board, Mark.X, TIME, max_nodes=node_limit)
        before = _snapshot(found)
        if isinstance(found, Ranking):
            found.rank()
        else:
            found.run()
        assert _snapshot(found) == before


# --- Against a threat of an open four, only its answers ---


def cells_at(*places: tuple[int, int]) -> set[int]:
    return {row * 15 + col for row, col in places}


def tried(board: Board, mover: Mark) -> set[int]:
    """Return the moves the heuristic search tries in `board` (at the root, for its fallback
    move, as in the tree: one function)."""
    found = Search(board, mover, TIME)
    return set(found._candidates(1 if mover is Mark.X else 2))


def test_against_an_open_three_only_its_answers_are_tried() -> None:
    """O's open three on row 7 makes an open four next at (7, 5) or (7, 9): X tries the
    cells of the windows that make one, the far ends included, and nothing else."""
    board = gomoku_board({(7, 6): "O", (7, 7): "O", (7, 8): "O", (6, 6): "X", (8, 8): "X"})
    assert tried(board, Mark.X) == cells_at((7, 4), (7, 5), (7, 9), (7, 10))


def test_against_a_broken_three_its_gap_is_an_answer() -> None:
    board = gomoku_board({(7, 6): "O", (7, 7): "O", (7, 9): "O", (6, 6): "X", (8, 8): "X"})
    assert tried(board, Mark.X) == cells_at((7, 5), (7, 8), (7, 10))


def test_against_an_open_three_the_movers_own_fours_are_tried_too() -> None:
    """A four of X's forces O's answer first: it stays a candidate beside the blocks."""
    board = gomoku_board(
        {(7, 6): "O", (7, 7): "O", (7, 8): "O", (2, 2): "X", (2, 3): "X", (2, 4): "X",
         (2, 1): "O", (8, 8): "X", (9, 9): "X"}
    )  # fmt: skip
    own_fours = cells_at((2, 5), (2, 6))
    assert tried(board, Mark.X) == cells_at((7, 4), (7, 5), (7, 9), (7, 10)) | own_fours


def test_a_closed_three_does_not_narrow_the_moves() -> None:
    """Blocked at one end, O's three makes only a four, which X can block when it comes."""
    board = gomoku_board({(7, 6): "O", (7, 7): "O", (7, 8): "O", (7, 5): "X", (8, 8): "X"})
    moves = tried(board, Mark.X)
    assert len(moves) > 4
    assert moves - cells_at((7, 9), (7, 10)) - cells_at((7, 4))


def test_an_open_three_is_answered_by_a_block_that_holds() -> None:
    """The far ends answer some threes but not this one: O's (7, 9) after X's (7, 4) is an
    open four. The search sees it and blocks beside the three."""
    board = gomoku_board({(7, 6): "O", (7, 7): "O", (7, 8): "O", (6, 6): "X", (8, 8): "X"})
    assert search(board, Mark.X, TIME, max_nodes=NODES).move in cells_at((7, 5), (7, 9))


# --- the evaluation, for every line length ---


@pytest.mark.parametrize("k", range(1, 6))
def test_up_to_five_in_a_row_a_mark_in_a_window_is_worth_four_times_one_fewer(k: int) -> None:
    assert window_weights(k) == [0, *(4 ** (count - 1) for count in range(1, k + 2))]


@pytest.mark.parametrize("k", range(1, 21))
def test_window_weights_grow_with_marks_and_only_the_last_four_steeply(k: int) -> None:
    weights = window_weights(k)
    assert weights == sorted(set(weights))
    # 4 to the power of k would pass the heuristic limit from k = 10 and flatten everything.
    assert weights[k + 1] <= max(1, k - 4) * 4**5 < HEURISTIC_LIMIT


@pytest.mark.parametrize("k", range(5, 17))
def test_the_evaluation_means_something_for_long_lines(k: int) -> None:
    """X's open row four marks short of k, O's marks scattered one to a row and column: the
    search sees X ahead for every k (weights of 4 per mark to the power of k made it 0.0
    from k = 13 on)."""
    board = Board.empty(Rules(20, 20, k))
    marks = k - 4
    start = (20 - marks) // 2
    rows = [row for row in range(20) if row != 10][:marks]
    for at, row in enumerate(rows):
        board = board.play(10 * 20 + start + at, Mark.X).play(row * 20 + (3 * row + 1) % 20, Mark.O)
    found = search(board, Mark.X, 5, max_nodes=3000)
    assert found.method is Method.HEURISTIC
    assert found.evaluation > 0.005
