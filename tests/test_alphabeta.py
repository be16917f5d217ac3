"""The compiled alpha-beta is the pure-Python one, node for node: every search and every
analysis, given the same node limit, finds the same moves, values, depths and node counts.
The pure search stays the specification; the compiled one is what the service runs."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from service.game import alphabeta
from service.game.analysis import Ranking, analyse
from service.game.board import Board, Mark
from service.game.rules import Rules, Variant
from service.game.search import EXACT_EMPTY_CELLS, Search, search
from tests import search_reference as brute
from tests.helpers import FOURS_IN_SEVEN, reference_game

#: The games people play, misère, wide and short lines, and boards small enough to end.
GAMES = [
    Rules(15, 15, 5),
    Rules(9, 9, 5),
    Rules(7, 7, 4, misere=True),
    Rules(6, 8, 3),
    Rules(5, 5, 4),
    Rules(4, 5, 3, misere=True),
    Rules(9, 9, 5, variant=Variant.STANDARD),
    Rules(6, 8, 3, variant=Variant.STANDARD),
    Rules(9, 9, 5, variant=Variant.CARO),
]
TIME = 600.0


def positions(rules: Rules, seed: int, fewest: int, most: int) -> tuple[Board, Mark]:
    """Return a clustered legal position of `rules` with between `fewest` and `most` marks."""
    game = reference_game(rules)
    rng = random.Random(seed)
    while True:
        found = brute.clustered_position(game, rng, rng.randrange(fewest, most + 1))
        if found is not None:
            text, mover = found
            return Board.from_text(text, rules), Mark(mover)


def both_searches(board: Board, mover: Mark, nodes: int) -> tuple[object, object]:
    pure = search(board, mover, TIME, max_nodes=nodes, compiled=False)
    compiled = search(board, mover, TIME, max_nodes=nodes)
    return pure, compiled


def without_time(found: object) -> object:
    """Return a result with its seconds left out: the one thing allowed to differ."""
    return {name: getattr(found, name) for name in found.__slots__ if name != "seconds"}  # type: ignore[attr-defined]


@pytest.mark.parametrize("rules", GAMES, ids=lambda rules: rules.describe())
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("nodes", [40, 3000])
def test_a_search_finds_what_the_pure_search_finds(rules: Rules, seed: int, nodes: int) -> None:
    """A limit of 40 nodes stops most searches inside their first depths; 3,000 lets them
    deepen: either way the answers agree in every field but the time."""
    board, mover = positions(rules, seed, 3, 14)
    pure, compiled = both_searches(board, mover, nodes)
    assert without_time(compiled) == without_time(pure)


#: A table of so few slots that most of what a search stores replaces something.
FEW_SLOTS = 16


@pytest.mark.parametrize("rules", GAMES, ids=lambda rules: rules.describe())
@pytest.mark.parametrize("seed", range(2))
def test_a_search_whose_table_overflows_is_still_the_pure_search(rules: Rules, seed: int) -> None:
    """The two tables replace the same entries: the answers and analyses stay the same."""
    board, mover = positions(rules, seed + 20, 3, 14)
    pure = Search(board, mover, TIME, max_nodes=3000, compiled=False, table_slots=FEW_SLOTS)
    compiled = Search(board, mover, TIME, max_nodes=3000, table_slots=FEW_SLOTS)
    assert without_time(compiled.run()) == without_time(pure.run())
    pure_ranking = Ranking(
        board, mover, TIME, max_nodes=3000, compiled=False, table_slots=FEW_SLOTS
    )
    ranking = Ranking(board, mover, TIME, max_nodes=3000, table_slots=FEW_SLOTS)
    assert ranking.rank().moves == pure_ranking.rank().moves
    assert ranking.nodes == pure_ranking.nodes


def endgame(rules: Rules, seed: int) -> tuple[Board, Mark]:
    """Return a position reached by random play with `EXACT_EMPTY_CELLS` empty cells left."""
    rng = random.Random(seed)
    while True:
        board, mover = Board.empty(rules), Mark.X
        while len(board.empty_cells()) > EXACT_EMPTY_CELLS and not board.status().is_over:
            board = board.play(rng.choice(board.empty_cells()), mover)
            mover = Mark.O if mover is Mark.X else Mark.X
        if not board.status().is_over:
            return board, mover


@pytest.mark.parametrize(
    "rules",
    [
        Rules(5, 5, 4),
        Rules(4, 5, 4, misere=True),
        Rules(6, 6, 5),
        Rules(4, 6, 4),
        Rules(5, 5, 3, variant=Variant.STANDARD),
        Rules(5, 5, 3, variant=Variant.CARO),
    ],
    ids=lambda rules: rules.describe(),
)
@pytest.mark.parametrize("seed", range(3))
def test_an_exact_search_finds_what_the_pure_search_finds(rules: Rules, seed: int) -> None:
    board, mover = endgame(rules, seed)
    pure, compiled = both_searches(board, mover, 50_000)
    assert without_time(compiled) == without_time(pure)
    pure_ranks = analyse(board, mover, TIME, max_nodes=50_000, compiled=False)
    assert analyse(board, mover, TIME, max_nodes=50_000).moves == pure_ranks.moves


@pytest.mark.parametrize("rules", GAMES, ids=lambda rules: rules.describe())
@pytest.mark.parametrize("seed", range(3))
def test_an_analysis_finds_what_the_pure_analysis_finds(rules: Rules, seed: int) -> None:
    board, mover = positions(rules, seed + 10, 3, 12)
    pure = analyse(board, mover, TIME, max_nodes=4000, compiled=False)
    compiled = analyse(board, mover, TIME, max_nodes=4000)
    assert compiled.moves == pure.moves
    assert (compiled.method, compiled.depth, compiled.nodes) == (
        pure.method,
        pure.depth,
        pure.nodes,
    )


def threat_position(rules: Rules, seed: int) -> tuple[Board, Mark]:
    """Return a clustered position where the threat search has work: 20 nodes or more."""
    for attempt in range(seed * 1000, seed * 1000 + 1000):
        board, mover = positions(rules, attempt, 10, 40)
        threats = Search(board, mover, TIME, max_nodes=100_000, compiled=False)
        threats._threat_line()
        if threats.nodes >= 20:
            return board, mover
    raise AssertionError("no position with work for the threat search")


@pytest.mark.parametrize(
    "rules",
    [*GAMES[:2], Rules(7, 7, 4), Rules(11, 11, 4), Rules(11, 11, 4, variant=Variant.STANDARD)],
    ids=lambda rules: rules.describe(),
)
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("nodes", [7, 60, 100_000])
def test_the_threat_search_finds_what_the_pure_threat_search_finds(
    rules: Rules, seed: int, nodes: int
) -> None:
    """The same run of fours, or none, in the same nodes; cut by the limit at the same node."""
    board, mover = threat_position(rules, seed)
    pure = Search(board, mover, TIME, max_nodes=nodes, compiled=False)
    compiled = Search(board, mover, TIME, max_nodes=nodes)
    assert compiled._threat_line() == pure._threat_line()
    assert compiled.nodes == pure.nodes


def open_four_threat(rules: Rules, seed: int) -> tuple[Board, Mark]:
    """Return a clustered position where the opponent threatens an open four."""
    for attempt in range(seed * 1000, seed * 1000 + 1000):
        board, mover = positions(rules, attempt, 6, 30)
        found = Search(board, mover, TIME, compiled=False)
        if found.position.answers_to_open_fours(1 if mover is Mark.X else 2):
            return board, mover
    raise AssertionError("no position with a threat of an open four")


@pytest.mark.parametrize(
    "rules",
    [*GAMES[:2], Rules(7, 7, 4), Rules(11, 11, 4), Rules(11, 11, 4, variant=Variant.STANDARD)],
    ids=lambda rules: rules.describe(),
)
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("nodes", [40, 3000])
def test_against_an_open_four_threat_a_search_finds_what_the_pure_search_finds(
    rules: Rules, seed: int, nodes: int
) -> None:
    """Where the moves tried are only the answers to a threat, the two still agree."""
    board, mover = open_four_threat(rules, seed)
    pure, compiled = both_searches(board, mover, nodes)
    assert without_time(compiled) == without_time(pure)


def test_the_compiled_threat_search_finds_a_run_of_seven() -> None:
    board = Board.from_text(FOURS_IN_SEVEN, Rules(6, 7, 5))
    pure = Search(board, Mark.X, TIME, compiled=False)
    compiled = Search(board, Mark.X, TIME)
    found = compiled._threat_line()
    assert found is not None
    assert found == pure._threat_line()
    assert found[1] == 7
    assert compiled.nodes == pure.nodes


def test_every_compiled_entry_point_releases_the_interpreter_lock() -> None:
    """So that a search, its threat search included, leaves its worker's other threads free."""
    entry_points = (
        alphabeta.new_state,
        alphabeta.root_value,
        alphabeta.value_after,
        alphabeta.expected_line,
        alphabeta.shortest_run_of_fours,
    )
    assert all(function.targetoptions.get("nogil") for function in entry_points)


def test_the_compiled_search_stops_itself_on_the_clock() -> None:
    """No node limit: only the deadline, read by the compiled code, ends the search."""
    board = Board.empty(Rules(15, 15, 5)).play(112, Mark.X).play(113, Mark.O)
    result = search(board, Mark.X, 0.2)
    assert result.seconds >= 0.2
    assert result.depth >= 1
    assert not result.proven


def test_the_compiled_clock_is_the_monotonic_clock() -> None:
    before = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    read = alphabeta.monotonic_ns()
    after = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    assert before <= read <= after


def test_a_custom_clock_is_for_the_pure_search_only() -> None:
    with pytest.raises(ValueError, match="monotonic clock"):
        search(Board.empty(Rules(9, 9, 5)), Mark.X, 1.0, clock=time.monotonic)


def prepare_in_a_process(cache: Path) -> list[str]:
    """Run `prepare` in a fresh process with its own cache; return what it reports."""
    script = (
        "from service.game.warmup import prepare; from service.game import alphabeta; "
        "print(prepare(), len(alphabeta._negamax.signatures), len(alphabeta._fours.signatures))"
    )
    ran = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True, text=True, timeout=300, check=False,
        env={**os.environ, "NUMBA_CACHE_DIR": str(cache)},
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    return ran.stdout.split()


def test_a_fresh_process_searches_with_the_code_a_first_one_compiled(tmp_path: Path) -> None:
    """The first process compiles every function once, the recursion included: a second
    negamax, called with other argument types, is what numba's cache cannot link
    (numba#6061), and the next process would crash. The next one compiles nothing."""
    compiled, negamax_versions, fours_versions = prepare_in_a_process(tmp_path)
    assert int(compiled) > 0
    assert (negamax_versions, fours_versions) == ("1", "1")
    assert prepare_in_a_process(tmp_path)[0] == "0"


def test_two_searches_run_at_once_in_two_threads() -> None:
    """Each has its own position and table; the interpreter lock is released while they run."""
    board, mover = positions(Rules(9, 9, 5), 7, 6, 12)
    alone = search(board, mover, TIME, max_nodes=20_000)
    found: list[object] = []
    threads = [
        threading.Thread(target=lambda: found.append(search(board, mover, TIME, max_nodes=20_000)))
        for _ in range(2)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [without_time(each) for each in found] == [without_time(alone)] * 2
