"""The compiled search, the one the service runs: held to judges that share none of its code
(brute force, exhaustive play), stopped by its node limit or its own clock, compiled once
into numba's cache, and free of the interpreter lock."""

from __future__ import annotations

import hashlib
import itertools
import os
import pkgutil
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from service.game import compiled
from service.game.analysis import Ranking, SearchAnalysis, analyse
from service.game.board import Board, Mark
from service.game.renju import forbidden_cells, foul
from service.game.rules import Rules, Variant
from service.game.search import EXACT_EMPTY_CELLS, Method, Search, SearchResult, search
from service.game.warmup import prepare
from tests import search_reference as brute
from tests.family_reference import other
from tests.helpers import (
    FOURS_IN_SEVEN,
    assert_makes_a_four,
    assert_proven_move_holds,
    reference_game,
    reference_scores,
)

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


def without_time(found: object) -> object:
    """Return a result with its seconds left out: the one thing allowed to differ."""
    return {name: getattr(found, name) for name in found.__slots__ if name != "seconds"}  # type: ignore[attr-defined]


def assert_search_holds(board: Board, mover: Mark, result: SearchResult, nodes: int) -> None:
    """Assert what any search result promises: a legal move, the nodes within the limit (the
    one node over it is the one that stopped the search), a heuristic value never called
    proven, and every proven claim true by brute force."""
    assert result.move in board.empty_cells()
    assert result.nodes <= nodes + 1
    assert result.depth >= 0
    text, mark = board.to_text(), mover.value
    if not result.proven:
        assert (result.score, result.wins_within, result.method) == (None, None, Method.HEURISTIC)
        assert -1 < result.evaluation < 1
    elif result.wins_within is not None:
        assert result.method is Method.THREATS
        assert_makes_a_four(board.rules, text, mark, result.move)
    else:
        assert result.score is not None
        assert_proven_move_holds(board.rules, text, mark, result.move, result.score)


def assert_analysis_holds(board: Board, mover: Mark, ranked: SearchAnalysis) -> None:
    """Assert what any analysis promises: distinct legal moves, best first, each line a
    game's moves from the position, and every proven claim true by brute force."""
    moves = [estimate.move for estimate in ranked.moves]
    assert len(set(moves)) == len(moves)
    assert set(moves) <= set(board.empty_cells())
    evaluations = [estimate.evaluation for estimate in ranked.moves]
    assert evaluations == sorted(evaluations, reverse=True)
    text, mark = board.to_text(), mover.value
    for estimate in ranked.moves:
        assert estimate.line[0] == estimate.move
        played, player = board, mover
        for cell in estimate.line:
            assert not played.status().is_over
            played = played.play(cell, player)
            player = Mark(other(player.value))
        if estimate.wins_within is not None:
            assert_makes_a_four(board.rules, text, mark, estimate.move)
        elif estimate.proven:
            assert estimate.score is not None
            assert_proven_move_holds(board.rules, text, mark, estimate.move, estimate.score)
        else:
            assert estimate.score is None


@pytest.mark.parametrize("rules", GAMES, ids=lambda rules: rules.describe())
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("nodes", [40, 3000])
def test_a_search_stopped_by_its_node_limit_plays_legally_and_proves_only_the_truth(
    rules: Rules, seed: int, nodes: int
) -> None:
    """A limit of 40 nodes stops most searches inside their first depths; 3,000 lets them
    deepen: either way the move is legal and what is proven holds, and the same limit gives
    the same answer again."""
    board, mover = positions(rules, seed, 3, 14)
    result = search(board, mover, TIME, max_nodes=nodes)
    assert_search_holds(board, mover, result, nodes)
    assert without_time(search(board, mover, TIME, max_nodes=nodes)) == without_time(result)


@pytest.mark.parametrize("rules", GAMES, ids=lambda rules: rules.describe())
@pytest.mark.parametrize("seed", range(3))
def test_an_analysis_ranks_legal_moves_and_proves_only_the_truth(rules: Rules, seed: int) -> None:
    board, mover = positions(rules, seed + 10, 3, 12)
    ranked = analyse(board, mover, TIME, max_nodes=4000)
    assert_analysis_holds(board, mover, ranked)
    assert ranked.nodes <= 4000 + len(ranked.moves) + 1  # a ply per move always finishes


#: A table of so few slots that most of what a search stores replaces something.
FEW_SLOTS = 16


@pytest.mark.parametrize("rules", GAMES, ids=lambda rules: rules.describe())
@pytest.mark.parametrize("seed", range(2))
def test_a_search_whose_table_overflows_still_plays_legally_and_proves_only_the_truth(
    rules: Rules, seed: int
) -> None:
    """The table forgets nearly everything: the search is slower, never wrong."""
    board, mover = positions(rules, seed + 20, 3, 14)
    result = Search(board, mover, TIME, max_nodes=3000, table_slots=FEW_SLOTS).run()
    assert_search_holds(board, mover, result, 3000)
    ranked = Ranking(board, mover, TIME, max_nodes=3000, table_slots=FEW_SLOTS).rank()
    assert_analysis_holds(board, mover, ranked)


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
@pytest.mark.parametrize("slots", [None, FEW_SLOTS])
def test_an_exact_search_and_analysis_are_exhaustive_play(
    rules: Rules, seed: int, slots: int | None
) -> None:
    """With 8 empty cells the search's score and every ranked move's score are those of
    the independent reference's exhaustive play, with a full table or an overflowing one."""
    board, mover = endgame(rules, seed)
    scores = reference_scores(reference_game(rules), board.to_text(), mover.value)
    result = Search(board, mover, TIME, max_nodes=50_000, table_slots=slots).run()
    assert (result.proven, result.score) == (True, max(scores.values()))
    assert scores[result.move] == result.score
    ranked = Ranking(board, mover, TIME, max_nodes=50_000, table_slots=slots).rank()
    assert {estimate.move: estimate.score for estimate in ranked.moves} == scores
    assert ranked.score == max(scores.values())


def threat_position(rules: Rules, seed: int) -> tuple[Board, Mark]:
    """Return a clustered position where the threat search has work: 20 nodes or more."""
    for attempt in range(seed * 1000, seed * 1000 + 1000):
        board, mover = positions(rules, attempt, 10, 40)
        threats = Search(board, mover, TIME, max_nodes=100_000)
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
def test_a_run_of_fours_found_is_a_win_by_brute_force(rules: Rules, seed: int, nodes: int) -> None:
    """Found within its node limit, a run of three or five plies wins in exactly that many;
    a longer one begins with a four. Given every node it needs, a search that finds none
    leaves the mover no win in three."""
    board, mover = threat_position(rules, seed)
    threats = Search(board, mover, TIME, max_nodes=nodes)
    found = threats._threat_line()
    assert threats.nodes <= nodes + 1
    text, mark = board.to_text(), mover.value
    game = reference_game(rules)
    if found is None:
        if nodes == 100_000 and not brute.wins_at_once(game, text, other(mark)):
            assert not any(
                brute.wins_in_three(game, text, mark, cell) for cell in brute.empties(text)
            )
        return
    first, plies, threes = found
    if plies <= 5:
        assert_proven_move_holds(rules, text, mark, first, rules.max_score - plies)
    elif not threes:
        assert_makes_a_four(rules, text, mark, first)


def open_four_threat(rules: Rules, seed: int) -> tuple[Board, Mark]:
    """Return a clustered position where, by brute force, the opponent has a move after
    which two cells complete its line (an open four), and the mover has no four of its own
    to play first: it must answer the threat."""
    game = reference_game(rules)
    for attempt in range(seed * 1000, seed * 1000 + 1000):
        board, mover = positions(rules, attempt, 6, 30)
        text, opponent = board.to_text(), other(mover.value)
        if brute.wins_at_once(game, text, mover.value) or brute.wins_at_once(game, text, opponent):
            continue
        cells = brute.empties(text)
        if any(
            brute.wins_at_once(game, brute.placed(text, cell, mover.value), mover.value)
            for cell in cells
        ):
            continue
        if any(
            len(brute.wins_at_once(game, brute.placed(text, cell, opponent), opponent)) >= 2
            for cell in cells
        ):
            return board, mover
    raise AssertionError("no position with a threat of an open four")


def safe(rules: Rules, text: str, mover: str, move: int) -> bool:
    """Return whether, after `move`, the opponent has no win in one or three (brute force)."""
    game = reference_game(rules)
    after = brute.placed(text, move, mover)
    if brute.completes(game, text, move, mover):
        return True
    return not brute.wins_at_once(game, after, other(mover)) and not any(
        brute.wins_in_three(game, after, other(mover), cell) for cell in brute.empties(after)
    )


@pytest.mark.parametrize(
    "rules",
    [*GAMES[:2], Rules(7, 7, 4), Rules(11, 11, 4), Rules(11, 11, 4, variant=Variant.STANDARD)],
    ids=lambda rules: rules.describe(),
)
@pytest.mark.parametrize("seed", range(4))
def test_against_an_open_four_threat_a_search_answers_it(rules: Rules, seed: int) -> None:
    """Where some move leaves the opponent no win in three, the search, trying only the
    answers to the threat, plays one (at 3,000 nodes it sees the threat through)."""
    board, mover = open_four_threat(rules, seed)
    text, mark = board.to_text(), mover.value
    result = search(board, mover, TIME, max_nodes=3000)
    assert_search_holds(board, mover, result, 3000)
    if not safe(rules, text, mark, result.move):
        assert not any(safe(rules, text, mark, cell) for cell in brute.empties(text))


def test_the_threat_search_finds_a_run_of_seven() -> None:
    """6x7: the shortest run of fours takes seven plies; its first move is a four, and by
    brute force it wins within seven."""
    rules = Rules(6, 7, 5)
    board = Board.from_text(FOURS_IN_SEVEN, rules)
    found = Search(board, Mark.X, TIME)._threat_line()
    assert found is not None
    first, plies, threes = found
    assert (plies, threes) == (7, False)
    assert_makes_a_four(rules, FOURS_IN_SEVEN, "X", first)
    assert brute.move_wins_within(reference_game(rules), FOURS_IN_SEVEN, "X", first, 7)


def test_every_compiled_entry_point_releases_the_interpreter_lock() -> None:
    """So that a search, its threat search included, leaves its worker's other threads free."""
    entry_points = (
        compiled.state.new_state,
        compiled.tree.root_value,
        compiled.tree.value_after,
        compiled.tree.expected_line,
        compiled.threat_search.shortest_run_of_fours,
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
    read = compiled.kernel.monotonic_ns()
    after = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    assert before <= read <= after


def prepare_in_a_process(cache: Path) -> list[str]:
    """Run `prepare` in a fresh process with its own cache; return what it reports."""
    script = (
        "from service.game.warmup import prepare; from service.game import compiled; "
        "print(prepare(), len(compiled.tree._negamax.signatures), "
        "len(compiled.threat_search._fours.signatures))"
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
    compilations, negamax_versions, fours_versions = prepare_in_a_process(tmp_path)
    assert int(compilations) > 0
    assert (negamax_versions, fours_versions) == ("1", "1")
    assert prepare_in_a_process(tmp_path)[0] == "0"


@pytest.mark.parametrize("variant", list(Variant))
def test_prepare_leaves_a_first_search_under_any_variant_nothing_to_make(
    variant: Variant, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each variant's table of shapes is made by `prepare`, not by the first request under
    it (which once spent 0.17 s of its budget making it, and played a depth-1 move)."""
    compiled.state._shapes.cache_clear()
    prepare()

    def made_too_late(rule: int) -> None:
        raise AssertionError(f"a search made the table of shapes of rule {rule}")

    monkeypatch.setattr(compiled.state, "shape_table", made_too_late)
    board = Board.empty(Rules(15, 15, 5, variant=variant)).play(112, Mark.X).play(113, Mark.O)
    assert search(board, Mark.X, 60.0, max_nodes=2_000).depth >= 1


#: Two files of compiled functions, one calling the other, and a run that prints the call.
CALLEE = "from numba import njit\n\n@njit(cache=True)\ndef worth():\n    return {}\n"
CALLER = (
    "from numba import njit\nfrom callee import worth\n\n"
    "@njit(cache=True)\ndef twice():\n    return 2 * worth()\n"
)
RUN = (
    "import callee, caller\nfrom service.game.compiled import forget_stale_machine_code\n"
    "forgot = forget_stale_machine_code([callee, caller])\nprint(forgot, caller.twice())\n"
)


def run_the_caller(folder: Path) -> list[str]:
    """Run the two files' call in a fresh process, caching next to them; return its output."""
    ran = subprocess.run(
        [sys.executable, "-c", RUN],
        capture_output=True, text=True, timeout=120, check=False, cwd=folder,
        env={**os.environ, "PYTHONPATH": f"{folder}{os.pathsep}{Path(__file__).parents[1]}"},
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    return ran.stdout.split()


def test_a_change_to_a_called_file_reaches_the_caller_cached_in_another(tmp_path: Path) -> None:
    """numba checks a cached function against its own file only, and the caller's machine
    code holds its callee's: the package's stamp of its sources removes every cached
    function where any file changed, so the next process compiles the change, then loads
    it again; and a function moved to another line leaves no file of its old place."""
    (tmp_path / "callee.py").write_text(CALLEE.format(1))
    (tmp_path / "caller.py").write_text(CALLER)
    assert run_the_caller(tmp_path) == ["True", "2"]  # no stamp yet
    assert run_the_caller(tmp_path) == ["False", "2"]  # the same sources: the cache kept
    cached = {path.name for path in (tmp_path / "__pycache__").glob("*.nb[ic]")}
    (tmp_path / "callee.py").write_text("\n\n" + CALLEE.format(21))  # two lines lower
    assert run_the_caller(tmp_path) == ["True", "42"]
    assert run_the_caller(tmp_path) == ["False", "42"]
    now = {path.name for path in (tmp_path / "__pycache__").glob("*.nb[ic]")}
    assert {name for name in cached if name.startswith("callee.")}.isdisjoint(now)
    assert len(now) == len(cached)


def test_the_stamp_covers_every_module_of_the_package_and_names_their_sources() -> None:
    """Every module of the compiled package is in the stamp's digest (a new one left out
    would be a callee whose change no cache sees), and the stamp beside the cache, after
    the package's import, names the sources as they are."""
    modules = {module.__name__ for module in compiled._MODULES}
    files = pkgutil.iter_modules(compiled.__path__, prefix="service.game.compiled.")
    assert modules == {found.name for found in files}
    digest = hashlib.sha256()
    for module in compiled._MODULES:
        digest.update(Path(str(module.__file__)).read_bytes())
    # numba's own cache of a function, where the package finds the directory too.
    cache = Path(compiled.tree.root_value._cache.cache_path)  # type: ignore[attr-defined]
    assert (cache / compiled._STAMP).read_text() == digest.hexdigest()


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


# --- Shapes: what a move makes of its line, kept per move (five in a row) ---

EMPTY, OWN, THEIRS, OFF = 0, 1, 2, 3

#: Each rule's table, and which fives it counts for X and for O: "or more" (freestyle),
#: "exactly" (standard), "caro" (exactly, not closed at both ends by the opponent).
SHAPE_RULES = {
    compiled.shapes.FREESTYLE_SHAPES: ("or more", "or more"),
    compiled.shapes.EXACT_SHAPES: ("exactly", "exactly"),
    compiled.shapes.CARO_SHAPES: ("caro", "caro"),
    compiled.shapes.RENJU_SHAPES: ("exactly", "or more"),  # black exactly five, white five or more
}


def line_of(key: int, half: int) -> list[int]:
    """Return the line a key describes (half cells each side of the middle), the middle
    left empty: slots 0 to half-1 before the middle, nearest first, the others after it."""
    line = [EMPTY] * (2 * half + 1)
    for slot in range(2 * half):
        line[half - 1 - slot if slot < half else slot + 1] = (key >> (2 * slot)) & 3
    return line


def five_through_middle(line: list[int], fives: str) -> bool:
    """Whether the run of the mover's marks through the middle wins by `fives`."""
    middle = len(line) // 2
    low = high = middle
    while low > 0 and line[low - 1] == OWN:
        low -= 1
    while high < len(line) - 1 and line[high + 1] == OWN:
        high += 1
    length = high - low + 1
    if fives == "or more":
        return length >= 5
    if length != 5:
        return False
    # A run of five through the middle of 11 cells leaves both its ends on the line.
    return fives == "exactly" or not (line[low - 1] == THEIRS == line[high + 1])


def completions(line: list[int], fives: str) -> set[int]:
    """The empty cells where a second mark makes a five with the middle's (a four's ends)."""
    found = set()
    for at, code in enumerate(line):
        if code == EMPTY and at != len(line) // 2:
            line[at] = OWN
            if five_through_middle(line, fives):
                found.add(at)
            line[at] = EMPTY
    return found


def stopped_at_once(line: list[int], fives: str) -> bool:
    """Whether one of the opponent's stones, on any empty cell, leaves no completion."""
    for at, code in enumerate(line):
        if code == EMPTY and at != len(line) // 2:
            line[at] = THEIRS
            stopped = not completions(line, fives)
            line[at] = EMPTY
            if stopped:
                return True
    return False


def expected_shape(line: list[int], fives: str) -> int | None:
    """The shape brute force names for a move at the middle: a five, an open four (cells
    then complete a five, and no one stone of the opponent's stops them all: under caro a
    stone on one completion may close the other's five), a four (one stone stops it), or
    None for a lesser shape."""
    line = [*line]
    line[len(line) // 2] = OWN
    if five_through_middle(line, fives):
        return compiled.shapes.FIVE
    if not completions(line, fives):
        return None
    return compiled.shapes.FOUR if stopped_at_once(line, fives) else compiled.shapes.OPEN_FOUR


def swapped(key: int, slots: int) -> int:
    """The key with X and O swapped: O's view of X's line."""
    codes = ((key >> (2 * slot)) & 3 for slot in range(slots))
    return sum({OWN: THEIRS, THEIRS: OWN}.get(code, code) << (2 * slot) for slot, code in
               enumerate(codes))  # fmt: skip


def on_a_board(key: int, half: int) -> bool:
    """Whether a key's line can lie on a board: on each side, every cell beyond one off the
    board is off it too."""
    line = line_of(key, half)
    for outwards in (line[half - 1 :: -1], line[half + 1 :]):
        edge = outwards.index(OFF) if OFF in outwards else half
        if any(code != OFF for code in outwards[edge:]):
            return False
    return True


def keys_on_a_board(half: int) -> list[int]:
    """Every key a board can hold, made side by side: some cells on the board (each empty,
    X or O), then the rest off it."""
    sides = [
        sum(code << (2 * slot) for slot, code in enumerate([*codes, *[OFF] * (half - on)]))
        for on in range(half + 1)
        for codes in itertools.product((EMPTY, OWN, THEIRS), repeat=on)
    ]
    return [before | after << (2 * half) for before in sides for after in sides]


def keys_to_check(rule: int) -> list[int]:
    """Every key of freestyle's 8 neighbours that a board can hold; 40,000 seeded ones of
    the others' 10."""
    half = 4 if rule == compiled.shapes.FREESTYLE_SHAPES else 5
    keys = keys_on_a_board(half)
    return keys if half == 4 else random.Random(rule).sample(keys, 40_000)


@pytest.mark.parametrize("half", [4, 5])
def test_the_table_makes_the_shapes_of_exactly_the_keys_a_board_can_hold(half: int) -> None:
    """The compiled filter keeps every key of `keys_on_a_board` and none other (every key
    of freestyle's 8 neighbours; 40,000 seeded ones of the others' 10)."""
    kept = set(keys_on_a_board(half))
    assert len(kept) == sum(3**on for on in range(half + 1)) ** 2
    looked_at = range(4 ** (2 * half)) if half == 4 else random.Random(half).sample(
        range(4 ** (2 * half)), 40_000)  # fmt: skip
    for key in looked_at:
        assert compiled.shapes._on_a_board(key, half) == (key in kept) == on_a_board(key, half)


@pytest.mark.parametrize("rule", sorted(SHAPE_RULES))
def test_the_shape_table_finds_every_five_and_four_as_brute_force_does(rule: int) -> None:
    """Each side's line of neighbours: a five when the move makes a winning run by the
    rule's fives, an open four when two cells or more then complete one with it, a four
    when one does, and a lesser shape otherwise (O's table read with the colours swapped)."""
    table = compiled.shapes.shape_table(rule)
    half = 4 if rule == compiled.shapes.FREESTYLE_SHAPES else 5
    assert table.shape == (3, 4 ** (2 * half))
    for key in keys_to_check(rule):
        line = line_of(key, half)
        for player, fives in zip((1, 2), SHAPE_RULES[rule], strict=True):
            shape = table[player, key if player == 1 else swapped(key, 2 * half)]
            expected = expected_shape(line, fives)
            if expected is None:
                assert shape <= compiled.shapes.OPEN_THREE, (rule, player, line)
            else:
                assert shape == expected, (rule, player, line)


def test_an_overline_is_no_five_and_caro_counts_no_closed_five() -> None:
    """Examples on 11-cell lines: four X beside the move and one beyond it make six in a
    row; four X and the move between two O make a closed five."""
    half = 5

    def key(line: str) -> int:
        """The key of an 11-cell line written with the middle as '*'."""
        codes = {".": EMPTY, "X": OWN, "O": THEIRS, "#": OFF, "*": EMPTY}
        cells = [codes[char] for char in line]
        return sum(
            cells[half - 1 - slot if slot < half else slot + 1] << (2 * slot)
            for slot in range(2 * half)
        )

    overline = key(".XXXX*X....")  # six with the move
    closed = key("OXXXX*O....")  # five, the opponent at both ends
    for rule, (overline_shape, closed_shape) in {
        compiled.shapes.EXACT_SHAPES: (None, compiled.shapes.FIVE),
        compiled.shapes.CARO_SHAPES: (None, None),
        compiled.shapes.RENJU_SHAPES: (None, compiled.shapes.FIVE),  # for black
    }.items():
        table = compiled.shapes.shape_table(rule)
        for line, expected in ((overline, overline_shape), (closed, closed_shape)):
            if expected is None:
                assert table[1, line] < compiled.shapes.FIVE
            else:
                assert table[1, line] == expected
    renju = compiled.shapes.shape_table(compiled.shapes.RENJU_SHAPES)
    assert renju[2, swapped(overline, 10)] == compiled.shapes.FIVE  # white's overline wins


@pytest.mark.parametrize("variant", [Variant.FREESTYLE, Variant.RENJU])
@pytest.mark.parametrize("size", [(5, 5), (5, 20), (20, 6), (7, 9), (15, 15), (20, 20)])
def test_every_key_a_board_holds_is_one_the_table_of_shapes_fills(
    variant: Variant, size: tuple[int, int]
) -> None:
    """The table leaves the shapes of lines no board holds unmade: every cell's key in
    every direction, with marks on half the cells, is one whose shapes it makes."""
    rules = Rules(*size, 5, variant=variant)
    rng = random.Random(size[0] * 100 + size[1])
    found = Search(Board.empty(rules), Mark.X, TIME)
    geometry, state, _table, _limits = found.kernel
    half = 4 if variant is Variant.FREESTYLE else 5
    for step, cell in enumerate(rng.sample(range(rules.cell_count), rules.cell_count // 2)):
        compiled.state._play(geometry, state, cell, 1 + step % 2)
    keys = {int(key) for key in state[9].ravel()}
    assert len(keys) > 20
    assert all(compiled.shapes._on_a_board(key, half) for key in keys)
    assert keys <= set(keys_on_a_board(half))


@pytest.mark.parametrize("variant", list(Variant))
@pytest.mark.parametrize("seed", range(2))
def test_the_shapes_kept_as_marks_come_and_go_are_those_counted_afresh(
    variant: Variant, seed: int
) -> None:
    """Marks played and taken back in any order leave each cell's keys and the tally of
    shapes as a new state of the same position has them."""
    rng = random.Random(seed)
    rules = Rules(15, 15, 5, variant=variant)
    found = Search(Board.empty(rules), Mark.X, TIME)
    geometry, state, _table, _limits = found.kernel
    assert compiled.state.keeps_shapes(found.kernel)
    played: list[int] = []
    for step in range(120):
        if played and rng.random() < 0.3:
            compiled.state._undo(geometry, state, played.pop(rng.randrange(len(played))))
        else:
            cell = rng.choice([c for c in range(rules.cell_count) if state[0][c] == 0])
            compiled.state._play(geometry, state, cell, 1 + step % 2)
            played.append(cell)
        afresh = compiled.state.new_state(geometry, state[0].copy(), state[8])
        assert (state[9] == afresh[9]).all()
        assert (state[10][1:, 1:] == afresh[10][1:, 1:]).all()
        assert (state[13] == afresh[13]).all()
        assert (state[14] == afresh[14]).all()
        assert (state[15] == afresh[15]).all()
        counted = np.flatnonzero((state[0] == 0) & (state[2] > 0))
        bits = [(int(state[15][cell >> 6]) >> (cell & 63)) & 1 for cell in range(225)]
        assert np.flatnonzero(bits).tolist() == counted.tolist()
        # The packed shapes of the cells near a mark, which the candidates and leaves read.
        for near in counted:
            for player in (1, 2):
                packed = compiled.shapes._packed(state, near, player, -1, 0)
                assert state[14][near, player] == packed


@pytest.mark.parametrize("variant", list(Variant))
def test_a_five_in_a_cells_shapes_is_a_completed_line_as_the_windows_judge_it(
    variant: Variant,
) -> None:
    """The leaves read a win at once from the move's shapes, packed as the position keeps
    them (`_counted_makes_at_least`; `_makes_at_least` reads the keys): on crowded seeded
    positions of every variant, for every empty cell and both sides, it is the windows'
    own judgement (`_change_by`)."""
    rng = random.Random(5)
    rules = Rules(15, 15, 5, variant=variant)
    geometry, state, _table, _limits = Search(Board.empty(rules), Mark.X, TIME).kernel
    fives = 0
    for step in range(150):
        cell = rng.choice([c for c in range(rules.cell_count) if state[0][c] == 0])
        compiled.state._play(geometry, state, cell, 1 + step % 2)
        for empty in np.flatnonzero(state[0] == 0):
            for player in (1, 2):
                completes = compiled.evaluation._change_by(geometry, state, empty, player)[0]
                five = compiled.shapes.FIVE
                assert compiled.shapes._makes_at_least(state, empty, player, five) == completes
                packed = compiled.shapes._counted_makes_at_least(state, empty, player, five)
                assert packed == completes
                fives += completes
    assert fives > 100


@pytest.mark.parametrize("variant", list(Variant))
def test_the_common_nodes_candidates_are_the_best_near_cells_by_shapes_then_promise(
    variant: Variant,
) -> None:
    """The common node reads its candidates off the counted cells' bits
    (`_shaped_near_cells`): on seeded positions of every variant, for both sides, they are
    the CANDIDATES_TRIED empty cells near a mark of the highest move value (Wine's reading
    of their shapes from the keys), then promise (at most 99,999), then the lowest cell."""
    rng = random.Random(8)
    rules = Rules(15, 15, 5, variant=variant)
    geometry, state, _table, _limits = Search(Board.empty(rules), Mark.X, TIME).kernel
    tried = compiled.candidates.CANDIDATES_TRIED
    for step in range(100):
        cell = rng.choice([c for c in range(rules.cell_count) if state[0][c] == 0])
        compiled.state._play(geometry, state, cell, 1 + step % 2)
        near = np.flatnonzero((state[0] == 0) & (state[2] > 0))
        for player in (1, 2):
            keys = np.empty(tried, dtype=np.int64)
            kept = compiled.candidates._shaped_near_cells(state, player, keys)

            def shapes(at: int, side: int) -> list[int]:
                return [int(state[8][side, state[9][at, line]]) for line in range(4)]

            def worth(at: int, side: int = player) -> int:
                mine = wine_move_value(shapes(at, side))
                theirs = wine_move_value(shapes(at, 3 - side))
                value = (
                    (2 * mine if mine >= theirs else theirs)
                    if max(mine, theirs) >= 200
                    else 2 * mine + theirs
                )
                return value * 100_000 + min(int(state[3][at]), 99_999)

            expected = sorted(near.tolist(), key=lambda at: (-worth(at), at))[:tried]
            assert keys[:kept].tolist() == expected


@pytest.mark.parametrize("variant", list(Variant))
def test_a_leafs_tally_worked_out_without_its_move_is_the_tally_the_move_leaves(
    variant: Variant,
) -> None:
    """The leaves read the tally a move would leave without playing it (`_tally_after`):
    on seeded positions of every variant, from the first marks to a crowded board, for
    every empty cell and both sides, it is the tally the move's marks bring about
    (`_mark_near`, `_mark_lines`), and the position is left as it was."""
    rng = random.Random(7)
    rules = Rules(15, 15, 5, variant=variant)
    geometry, state, _table, _limits = Search(Board.empty(rules), Mark.X, TIME).kernel
    after = np.zeros_like(state[10])
    for step in range(90):
        cell = rng.choice([c for c in range(rules.cell_count) if state[0][c] == 0])
        compiled.state._play(geometry, state, cell, 1 + step % 2)
        before = [array.copy() for array in state]
        for empty in np.flatnonzero(state[0] == 0):
            for player in (1, 2):
                compiled.evaluation._tally_after(geometry, state, empty, player, after)
                compiled.state._mark_near(geometry, state, empty, 1)
                compiled.shapes._mark_lines(state, empty, player)
                assert (after[1:] == state[10][1:]).all()
                compiled.shapes._mark_lines(state, empty, 0)
                compiled.state._mark_near(geometry, state, empty, -1)
        assert all((array == kept).all() for array, kept in zip(state, before, strict=True))


def wine_move_value(shapes: list[int]) -> int:
    """What a move making `shapes` (one a direction) is worth, as Wine's move values read:
    a five; an open four or two fours; a four and an open three; two open threes; else a
    little for each lesser shape."""
    if compiled.shapes.FIVE in shapes:
        return 5000
    if compiled.shapes.OPEN_FOUR in shapes or shapes.count(compiled.shapes.FOUR) >= 2:
        return 1200
    if compiled.shapes.FOUR in shapes and compiled.shapes.OPEN_THREE in shapes:
        return 1000
    if shapes.count(compiled.shapes.OPEN_THREE) >= 2:
        return 200
    lesser = {
        compiled.shapes.BLOCKED_TWO: 2,
        compiled.shapes.OPEN_TWO: 5,
        compiled.shapes.BLOCKED_THREE: 5,
    }
    lesser |= {compiled.shapes.OPEN_THREE: 12, compiled.shapes.FOUR: 12}
    return sum(lesser.get(shape, 0) for shape in shapes)


def test_a_cells_move_value_is_wines_reading_of_its_four_shapes() -> None:
    """The candidates' order reads a move's value from one table by its four shapes
    (`cell_values`), packed as the position keeps them: on crowded seeded positions, for
    every empty cell near a mark and both sides, it is Wine's rule applied to the shapes
    one by one."""
    rng = random.Random(6)
    rules = Rules(15, 15, 5)
    geometry, state, _table, _limits = Search(Board.empty(rules), Mark.X, TIME).kernel
    seen = set()
    for step in range(150):
        cell = rng.choice([c for c in range(rules.cell_count) if state[0][c] == 0])
        compiled.state._play(geometry, state, cell, 1 + step % 2)
        for empty in np.flatnonzero((state[0] == 0) & (state[2] > 0)):
            for player in (1, 2):
                shapes = [int(state[8][player, state[9][empty, d]]) for d in range(4)]
                value = compiled.shapes.CELL_VALUES[state[14][empty, player]]
                assert value == wine_move_value(shapes)
                seen.add(value)
    assert {5000, 1200, 1000, 200} <= seen


def tried_below_the_root(kernel: compiled.kernel.Kernel, player: int) -> list[int]:
    """The moves the tree tries for `player` at a node one ply below its root."""
    geometry, state, _table, _limits = kernel
    ply = np.int64(1)
    work = compiled.state._work(state, ply + 1)
    count = compiled.candidates._candidates(
        geometry, state, player, -1, False, False, True, True, work, ply
    )
    return [int(cell) for cell in work[0][1, :count]]


@pytest.mark.parametrize("variant", [Variant.RENJU, Variant.STANDARD])
def test_under_renju_the_tree_never_tries_a_double_three_for_black(variant: Variant) -> None:
    """Black's two open threes meet at the centre: the best of its moves under the
    standard rule, a foul under renju, which the tree leaves out below its root (at the
    root the renju judge's own fouls are barred)."""
    rules = Rules(15, 15, 5, variant=variant)
    board, mover = Board.empty(rules), Mark.X
    for col, row in [(7, 5), (0, 0), (5, 7), (14, 0), (7, 6), (0, 14), (6, 7), (14, 14)]:
        board, mover = board.play(row * 15 + col, mover), mover.opponent
    kernel = Search(board, Mark.X, TIME).kernel
    tried = tried_below_the_root(kernel, 1)
    centre = 7 * 15 + 7
    if variant is Variant.RENJU:
        assert centre not in tried
    else:
        assert tried[0] == centre
    assert centre in tried_below_the_root(kernel, 2)  # white may


def looks_double() -> Board:
    """Renju, X to move: black at (8, 4) makes two threes by its shapes, but the row's can
    only become a straight four at (8, 5), itself a foul: no three, so no foul by the
    renju judge."""
    rules = Rules(15, 15, 5, variant=Variant.RENJU)
    rows = {4: "......O..O.....", 5: ".....XO..O.....", 6: ".....XX........",
            7: ".....X.........", 8: "......XX.......", 9: "......O.XO.....",
            10: ".....O........."}  # fmt: skip
    return Board.from_text("".join(rows.get(row, "." * 15) for row in range(15)), rules)


def test_at_the_root_black_may_try_a_three_that_only_looks_double() -> None:
    """The root tries black's (8, 4), no foul (`looks_double`), and the analysis ranks
    it; only below the root do the shapes rule it out."""
    board = looks_double()
    cell = 8 * 15 + 4
    assert foul(board, cell) is None
    barred = frozenset(forbidden_cells(board))
    kernel = Search(board, Mark.X, TIME, barred=barred).kernel
    geometry, state, _table, _limits = kernel
    assert compiled.fouls._shape_foul(state, cell)
    assert cell in compiled.candidates.likeliest_moves(geometry, state, 1, False, False)
    assert cell not in tried_below_the_root(kernel, 1)
    ranked = analyse(board, Mark.X, TIME, max_nodes=3000, barred=barred)
    assert cell in [estimate.move for estimate in ranked.moves]


#: Positions with O to move where O's four (the third entry) leaves one cell to make five
#: (the fourth), black's foul under renju: two open threes of black's meet there, or
#: black's stone there would make six in a row. (Rows, columns.)
FOUL_TRAPS = {
    "double three": (
        [(5, 7), (6, 7), (7, 5), (7, 6), (12, 12), (6, 6)],
        [(8, 8), (9, 9), (10, 10), (0, 0), (14, 0)],
        (11, 11),
        (7, 7),
    ),
    "overline": (
        [(3, 2), (3, 3), (3, 5), (3, 6), (3, 7), (8, 4), (2, 4)],
        [(4, 4), (5, 4), (6, 4), (14, 14), (14, 0), (0, 14)],
        (7, 4),
        (3, 4),
    ),
}


def foul_trap(name: str, variant: Variant) -> tuple[Board, int, int]:
    """Return a FOUL_TRAPS position under `variant`, O's four and the trap's cell."""
    x_cells, o_cells, (four_row, four_col), (trap_row, trap_col) = FOUL_TRAPS[name]
    board = Board.empty(Rules(15, 15, 5, variant=variant))
    for cells, mark in ((x_cells, Mark.X), (o_cells, Mark.O)):
        for row, col in cells:
            board = board.play(row * 15 + col, mark)
    return board, four_row * 15 + four_col, trap_row * 15 + trap_col


@pytest.mark.parametrize("name", sorted(FOUL_TRAPS))
def test_under_renju_a_five_to_make_on_blacks_foul_is_a_won_four(name: str) -> None:
    """After O's four, black stops the five only by its foul: it has lost, and the tree
    reads so at every node below the root, one ply from the leaves too (at the root the
    judge's own fouls decide), and O's threat search proves the four a win in three, as
    the analysis does."""
    board, four, trap = foul_trap(name, Variant.RENJU)
    after = board.play(four, Mark.O)
    assert trap in forbidden_cells(after)  # the judge's reading, not the shapes'
    geometry, state, _table, _limits = Search(after, Mark.X, TIME).kernel
    assert [compiled.tree.decided(geometry, state, 1, depth, 1, False) for depth in (1, 2, 5)] == [
        -compiled.evaluation.SHAPE_WIN
    ] * 3
    assert compiled.tree.decided(geometry, state, 1, 5, 0, False) == 0
    result = search(board, Mark.O, TIME, max_nodes=2000)
    won_in_three = board.rules.max_score - 3
    assert (result.move, result.method, result.proven) == (four, Method.THREATS, True)
    assert (result.score, result.wins_within) == (won_in_three, None)
    ranked = analyse(board, Mark.O, TIME, max_nodes=2000)
    assert (ranked.score, ranked.moves[0].move, ranked.moves[0].score) == (
        won_in_three,
        four,
        won_in_three,
    )


def test_under_renju_whites_run_of_fours_may_end_on_a_four_black_may_not_stop() -> None:
    """The double three's trap with O's diagonal a stone short and a row of O's closed by
    X: O's four at (10, 10) fills the diagonal, black blocks at (10, 9), and O's four at
    (11, 11) leaves one cell to stop, (7, 7), black's double three. O's threat search
    proves that run of two fours, its length a bound under renju, and the analysis proves
    the same, as does its win by threes, whose defences end the same way; under the
    standard rule black's block stands, and no run wins."""
    x_cells = [(5, 7), (6, 7), (7, 5), (7, 6), (12, 12), (6, 6), (10, 5), (0, 14)]
    o_cells = [(8, 8), (9, 9), (0, 0), (14, 0), (10, 6), (10, 7), (10, 8)]
    fills, trap = 10 * 15 + 10, 7 * 15 + 7
    for variant, proven in ((Variant.RENJU, True), (Variant.STANDARD, False)):
        board = Board.empty(Rules(15, 15, 5, variant=variant))
        for cells, mark in ((x_cells, Mark.X), (o_cells, Mark.O)):
            for row, col in cells:
                board = board.play(row * 15 + col, mark)
        if proven:
            after = board.play(fills, Mark.O).play(10 * 15 + 9, Mark.X).play(11 * 15 + 11, Mark.O)
            assert trap in forbidden_cells(after)  # the judge's reading
            searched = Search(board, Mark.O, TIME, max_nodes=20_000)
            assert searched._compiled(compiled.threat_search.win_by_threes, 2, 3, 8) == (5, fills)
        result = search(board, Mark.O, TIME, max_nodes=20_000)
        assert result.proven is proven
        ranked = analyse(board, Mark.O, TIME, max_nodes=20_000)
        if proven:
            assert (result.move, result.method) == (fills, Method.THREATS)
            assert (result.score, result.wins_within) == (None, 5)
            # A bound's evaluation, a win: no mean of depths (Swap2's side).
            assert result.evaluation == result.two_depth_evaluation == 1.0
            assert (ranked.wins_within, ranked.moves[0].move) == (5, fills)
        else:
            assert ranked.wins_within is None


def test_a_late_move_that_makes_a_four_or_takes_the_opponents_is_never_reduced() -> None:
    """Late quiet moves are searched two plies shallower first; a four made, or the cell
    where the opponent would make one taken, is not quiet, however little the move's value."""
    board = Board.empty(Rules(15, 15, 5))
    for row, col, mark in [(7, 5, Mark.X), (7, 6, Mark.X), (7, 7, Mark.X), (7, 4, Mark.O),
                           (8, 6, Mark.O), (6, 8, Mark.O)]:  # fmt: skip
        board = board.play(row * 15 + col, mark)
    _geometry, state, _table, _limits = Search(board, Mark.X, TIME).kernel
    four, far = 7 * 15 + 8, 12 * 15 + 12
    late, deep, below_the_root = 5, 6, 1
    x, o = 1, 2

    def reduction(move: int, player: int) -> int:
        return int(compiled.tree.reduction(state, move, player, late, deep, below_the_root, False))

    assert reduction(four, x) == 0  # X's four, closed at one end: a move value under 96
    assert reduction(four, o) == 0  # O takes the cell of X's four: under 96 too
    assert reduction(far, x) == reduction(far, o) == compiled.tree.REDUCED_PLIES
    # Later moves of deeper nodes, by more plies, an even number still.
    deeper = [int(compiled.tree.reduction(state, far, x, *at, below_the_root, False))
              for at in [(6, 5), (6, 6), (10, 7), (10, 8)]]  # fmt: skip
    assert deeper == [2, 4, 4, 6]


def scattered() -> Board:
    """15x15, X to move: eight stones, no two of a side within four cells in a line, so
    that every move near them is quiet (it makes or stops at most a two)."""
    board, mover = Board.empty(Rules(15, 15, 5)), Mark.X
    for row, col in [(7, 7), (2, 2), (2, 12), (12, 2), (12, 12), (7, 1), (7, 13), (1, 7)]:
        board, mover = board.play(row * 15 + col, mover), mover.opponent
    return board


def nodes_and_value(depth: int, alpha: int, beta: int) -> tuple[int, int]:
    """Search `scattered` for X a ply below the root, `depth` plies from the leaves,
    within (alpha, beta), with a table of its own; return the nodes counted and the value."""
    geometry, state, table, limits = Search(scattered(), Mark.X, TIME).kernel
    ply = np.int64(1)  # not a literal: see compiled.tree.root_value
    value = compiled.tree.node_value(
        geometry, state, table, 1, depth, alpha, beta, ply, False, False, limits
    )
    return int(limits[0]), int(value)


def test_a_null_window_node_near_the_leaves_far_above_beta_is_worth_its_shapes() -> None:
    """Futility pruning: at most len(FUTILITY_MARGINS) - 1 plies from the leaves, a node
    searched with a null window whose static value less FUTILITY_MARGINS[depth] is at least
    beta is not searched; a point less, or a full window, and it is."""
    _geometry, state, _table, _limits = Search(scattered(), Mark.X, TIME).kernel
    static = -int(compiled.evaluation._shape_value(state[10], state[11], 2))
    for depth, margin in enumerate(compiled.tree.FUTILITY_MARGINS):
        beta = static - margin
        assert nodes_and_value(depth, beta - 1, beta) == (1, static)
        # Searched: more nodes, or a leaf's parent's value (its leaves count no node).
        assert nodes_and_value(depth, beta, beta + 1) != (1, static)
        assert nodes_and_value(depth, beta - 2, beta) != (1, static)
    deeper = len(compiled.tree.FUTILITY_MARGINS)
    beta = static - 100 * max(compiled.tree.FUTILITY_MARGINS)
    assert nodes_and_value(deeper, beta - 1, beta)[0] > 1


FREESTYLES_FIT = "freestyle's fit"
RENJUS_FIT = "renju's fit"
WINES = "Wine's"


@pytest.mark.parametrize(
    ("rules", "weights", "wines_asked"),
    [
        (Rules(15, 15, 5), FREESTYLES_FIT, False),
        (Rules(5, 5, 5), FREESTYLES_FIT, False),
        (Rules(3, 5, 5), WINES, False),
        (Rules(2, 8, 5), WINES, False),
        (Rules(1, 16, 5), WINES, False),
        (Rules(15, 15, 5, variant=Variant.STANDARD), WINES, False),
        (Rules(15, 15, 5, variant=Variant.RENJU), RENJUS_FIT, False),
        (Rules(9, 9, 5, variant=Variant.RENJU), RENJUS_FIT, False),
        (Rules(15, 15, 5, variant=Variant.CARO), WINES, False),
        (Rules(15, 15, 5), WINES, True),
        (Rules(15, 15, 5, variant=Variant.RENJU), WINES, True),
    ],
)
@pytest.mark.parametrize("to_move", [Mark.X, Mark.O])
def test_the_fitted_weights_value_freestyle_and_renju_leaves_beyond_16_cells(
    rules: Rules, weights: str, wines_asked: bool, to_move: Mark
) -> None:
    """Freestyle's and renju's leaves on boards of more than 16 cells are worth the tally
    of each side's shapes by the weights fitted to their games (renju's by which side is to
    move: black, X, or white), the side that has just moved's less the side to move's;
    every other game keeps Wine's (the smaller boards' answers never change), and so does
    a search asked for Wine's (`wines_weights`, Swap2's under renju), on its scale."""
    board = Board.empty(rules)
    stones = [
        (0, Mark.X),
        (rules.cell_count - 1, Mark.O),
        (2, Mark.X),
        (rules.cell_count - 3, Mark.O),
    ]
    for cell, mark in stones[: 3 if to_move is Mark.O else 4]:
        board = board.play(cell, mark)
    searched = Search(board, to_move, TIME, wines_weights=wines_asked)
    _geometry, state, _table, _limits = searched.kernel
    tally = state[10]
    mover = 1 if to_move is Mark.X else 2
    waiting = 3 - mover
    evaluation = compiled.evaluation
    by_fit = {
        FREESTYLES_FIT: (evaluation.FITTED_MOVER_VALUES, evaluation.FITTED_WAITING_VALUES),
        RENJUS_FIT: (
            evaluation.RENJU_FITTED_MOVER_VALUES[mover - 1],
            evaluation.RENJU_FITTED_WAITING_VALUES[mover - 1],
        ),
    }
    values = {
        fit: sum(
            int(waiting_values[column]) * int(tally[waiting, column])
            - int(mover_values[column]) * int(tally[mover, column])
            for column in range(1, tally.shape[1])
        )
        for fit, (mover_values, waiting_values) in by_fit.items()
    }
    wines = evaluation.SHAPE_VALUES
    mine = sum(int(wines[shape]) * int(tally[waiting, shape]) for shape in range(1, 8))
    theirs = sum(int(wines[shape]) * int(tally[mover, shape]) for shape in range(1, 8))
    assert tally[mover, compiled.shapes.DOUBLE_FOURS] == 0
    values[WINES] = mine - theirs * 6 // 5
    assert len(set(values.values())) == 3  # the position tells the three apart
    assert int(evaluation._shape_value(tally, state[11], waiting)) == values[weights]
    assert compiled.state.reads_fitted_weights(searched.kernel) == (weights != WINES)
    if rules.cell_count > 16:
        fitted = weights != WINES
        scale = evaluation.FITTED_SHAPE_SCALE if fitted else evaluation.SHAPE_SCALE
        assert searched.value_scale == scale


def test_a_leaf_is_worth_the_mean_of_its_value_and_the_position_before_its_move() -> None:
    """One ply from the leaves, where the fitted weights apply, each move's leaf is worth
    the mean of the value its move leaves and the position's before it (to the side that
    plays it, as Rapfi averages its evaluation over two plies), the best of them the node's."""
    geometry, state, table, limits = Search(scattered(), Mark.X, TIME).kernel
    x, o = 1, 2
    before = -int(compiled.evaluation._shape_value(state[10], state[11], o))
    ply = np.int64(1)
    leaves = []
    for move in compiled.tree.node_moves(geometry, state, table, x, 1, ply, False):
        assert not compiled.state.play_move(geometry, state, int(move), x)
        left = int(compiled.evaluation._shape_value(state[10], state[11], x))
        compiled.state.undo_move(geometry, state, int(move))
        assert abs(left) < compiled.evaluation.SHAPE_WIN  # quiet: nothing decided
        leaves.append((left + before) // 2)
    full = (-compiled.kernel.MATE - 1, compiled.kernel.MATE + 1)
    value = compiled.tree.node_value(geometry, state, table, x, 1, *full, ply, False, False, limits)
    assert value == max(leaves)
    assert max(leaves) != max(leaves) * 2 - before  # the mean is not the leaf's own value


def test_a_reduced_reply_at_depth_0_is_valued_as_a_leafs_parent() -> None:
    """A late quiet move three plies from the leaves, reduced by two, leaves its reply at
    depth 0: valued as one ply from the leaves is, not read from the table where the table
    holds nothing (once read as settled there, and worth 0: a draw)."""
    full = (-compiled.kernel.MATE - 1, compiled.kernel.MATE + 1)
    nodes, value = nodes_and_value(0, *full)
    assert (nodes, value) == nodes_and_value(1, *full)
    assert value != 0


def test_boards_of_16_cells_or_fewer_are_neither_pruned_nor_reduced_deeper() -> None:
    """Their answers never change: on 2x8 and 3x5, five in a row, a node far above its null
    window is searched, late quiet moves are, and reduced by two plies only; and a reduced
    reply at depth 0 that the table does not hold reads as a draw, as it did."""
    for rules in (Rules(2, 8, 5), Rules(3, 5, 5)):
        board = Board.empty(rules).play(0, Mark.X).play(rules.cols * rules.rows - 1, Mark.O)
        geometry, state, table, limits = Search(board, Mark.X, TIME).kernel
        assert state[11][0] == 1  # the game keeps shapes, as 15x15's does
        low = -compiled.kernel.HEURISTIC_LIMIT
        ply = np.int64(1)
        assert compiled.tree.node_value(
            geometry, state, table, 1, 0, low, -low, ply, False, False, limits
        ) == 0  # fmt: skip
        assert compiled.tree._futile(state, 1, 2, low, low + 1, 1, False, False) == (
            compiled.kernel.ABORTED
        )
        move = 1 + rules.cols  # an empty cell, quiet on so short a board
        assert not compiled.tree._pruned(state, move, 1, 10, 3, 1, False, False, 0)
        assert compiled.tree.reduction(state, move, 1, 10, 8, 1, False) in (0, 2)


def test_near_the_leaves_a_node_leaves_its_late_quiet_moves_unsearched() -> None:
    """Late-move pruning: two and three plies from the leaves a node searches its first
    PRUNED_FROM[depth] quiet moves and no more. Its window is beyond every value, so that
    nothing cuts and each reply, far above its own window, is worth its shapes (one node)."""
    geometry, state, table, _limits = Search(scattered(), Mark.X, TIME).kernel
    ply = np.int64(1)
    tried = compiled.tree.node_moves(geometry, state, table, 1, 2, ply, False)
    assert len(tried) == compiled.candidates.CANDIDATES_TRIED  # more than it searches
    beyond = compiled.kernel.HEURISTIC_LIMIT
    for depth in (2, 3):
        nodes, _value = nodes_and_value(depth, beyond - 1, beyond)
        assert nodes == 1 + compiled.tree.PRUNED_FROM[depth]


def test_a_foul_that_stops_fives_in_two_directions_stops_neither() -> None:
    """The double three's trap with a second four of O's through the centre, on the other
    diagonal: two of O's fives to make, one cell, black's foul. Lost all the same."""
    board, four, centre = foul_trap("double three", Variant.RENJU)
    board = board.play(four, Mark.O)
    for row, col in [(8, 6), (9, 5), (10, 4), (11, 3)]:  # the other diagonal's four
        board = board.play(row * 15 + col, Mark.O)
    for row, col in [(12, 2), (14, 5), (14, 8), (14, 11)]:  # its far end closed
        board = board.play(row * 15 + col, Mark.X)
    assert centre in forbidden_cells(board)
    geometry, state, _table, _limits = Search(board, Mark.X, TIME).kernel
    assert state[10][2, compiled.shapes.FIVE] == 2
    assert compiled.tree.decided(geometry, state, 1, 3, 1, False) == -compiled.evaluation.SHAPE_WIN


def test_a_five_to_stop_on_a_three_that_only_looks_double_is_stopped() -> None:
    """O's three on column 4, closed at (13, 4), becomes a four at (11, 4): black stops it
    at (8, 4), two threes by its shapes but no foul (`looks_double`). One level deeper the
    tree sees the row's three for what it is, and the node is not lost."""
    board = looks_double()
    for cell, mark in [((9, 4), Mark.O), ((13, 4), Mark.X), ((10, 4), Mark.O),
                       ((0, 0), Mark.X), ((12, 4), Mark.O), ((0, 14), Mark.X),
                       ((14, 14), Mark.X), ((11, 4), Mark.O)]:  # fmt: skip
        board = board.play(cell[0] * 15 + cell[1], mark)
    block = 8 * 15 + 4
    assert block not in forbidden_cells(board)
    geometry, state, _table, _limits = Search(board, Mark.X, TIME).kernel
    assert compiled.fouls._shape_foul(state, block)
    assert not compiled.fouls._blocking_foul(geometry, state, block)
    assert [compiled.tree.decided(geometry, state, 1, depth, 1, False) for depth in (1, 2, 5)] == [
        0
    ] * 3


def test_under_the_standard_rule_black_blocks_the_four_and_wins_itself() -> None:
    """The same double three under the standard rule: no foul, so black's block stands and
    its two threes win; O blocks them first."""
    board, four, trap = foul_trap("double three", Variant.STANDARD)
    geometry, state, _table, _limits = Search(board.play(four, Mark.O), Mark.X, TIME).kernel
    assert [compiled.tree.decided(geometry, state, 1, depth, 1, False) for depth in (1, 2, 5)] == [
        0,
        0,
        0,
    ]
    assert search(board, Mark.O, TIME, max_nodes=2000).move == trap


def test_under_caro_one_stone_may_stop_two_fives_and_the_leaf_knows_it() -> None:
    """X's row . X X X X . O: a five to make at either end, but O at the far end from its
    own stone closes the other five at both ends. Not an open four, nor two fives that
    win a leaf: after O's stone X has no five to make."""
    rules = Rules(15, 15, 5, variant=Variant.CARO)
    board = Board.empty(rules)
    for cell, mark in [(109, Mark.X), (114, Mark.O), (111, Mark.X), (0, Mark.O),
                       (112, Mark.X), (14, Mark.O)]:  # fmt: skip
        board = board.play(cell, mark)
    geometry, state, _table, _limits = Search(board, Mark.X, TIME).kernel
    shapes = [state[8][1, state[9][110, direction]] for direction in range(4)]
    assert max(shapes) == compiled.shapes.FOUR  # X . X X . O with X's move between: no open four
    compiled.state._play(geometry, state, 110, 1)
    assert state[10][1, compiled.shapes.FIVE] == 2
    assert (
        compiled.evaluation._shape_value(state[10], state[11], 1) < compiled.evaluation.SHAPE_WIN
    )  # O to move
    compiled.state._play(geometry, state, 108, 2)
    assert state[10][1, compiled.shapes.FIVE] == 0


@pytest.mark.parametrize("variant", [Variant.FREESTYLE, Variant.RENJU])
def test_two_fours_at_once_to_make_win_a_leaf_except_blacks_under_renju(variant: Variant) -> None:
    """X's threes on row 7 and column 7, each closed by an O, meet at (7, 7), where X makes
    two fours at once: the opponent can stop only one, as if it were an open four. Under
    renju it is black's foul, and only worth what its shapes are."""
    rules = Rules(15, 15, 5, variant=variant)
    board, mover = Board.empty(rules), Mark.X
    x_cells = [(7, 4), (7, 5), (7, 6), (4, 7), (5, 7), (6, 7)]
    o_cells = [(7, 3), (3, 7), (0, 0), (0, 14), (14, 0), (14, 14)]
    for x_cell, o_cell in zip(x_cells, o_cells, strict=True):
        board = board.play(x_cell[0] * 15 + x_cell[1], Mark.X).play(
            o_cell[0] * 15 + o_cell[1], Mark.O
        )
    _geometry, state, _table, _limits = Search(board, mover, TIME).kernel
    value_to_o = compiled.evaluation._shape_value(state[10], state[11], 2)  # X to move
    if variant is Variant.FREESTYLE:
        assert value_to_o == -compiled.evaluation.SHAPE_WIN
        assert state[10][1, compiled.shapes.DOUBLE_FOURS] == 1
    else:
        assert -compiled.evaluation.SHAPE_WIN < value_to_o < 0
        assert state[10][1, compiled.shapes.DOUBLE_FOURS] == 0


def x_to_move(
    rules: Rules, x_cells: list[tuple[int, int]], o_cells: list[tuple[int, int]]
) -> compiled.kernel.Kernel:
    """The kernel of a position with as many X as O on it (X to move): each list's cells
    as (row, column)."""
    board = Board.empty(rules)
    for x_cell, o_cell in zip(x_cells, o_cells, strict=True):
        board = board.play(x_cell[0] * 15 + x_cell[1], Mark.X)
        board = board.play(o_cell[0] * 15 + o_cell[1], Mark.O)
    return Search(board, Mark.X, TIME).kernel


#: Far from everything: O's marks that make nothing.
CORNERS = [(0, 0), (0, 14), (14, 0), (14, 14), (0, 7), (14, 7)]


@pytest.mark.parametrize("variant", [Variant.FREESTYLE, Variant.STANDARD, Variant.RENJU])
def test_a_four_and_an_open_three_at_once_win_a_leaf_when_no_four_answers(
    variant: Variant,
) -> None:
    """X's three on row 7, closed by an O, and its two on column 7 meet at (7, 7): there X
    makes a four and an open three at once. O, with no four to make, must block the four,
    and the three becomes an open four: the leaf is won for X, black under renju too (a
    four-three is no foul). Given a four of its own to make, O may answer with it: the
    leaf is only what its shapes are worth."""
    rules = Rules(15, 15, 5, variant=variant)
    x_cells = [(7, 4), (7, 5), (7, 6), (5, 7), (6, 7)]
    kernel = x_to_move(rules, x_cells, [(7, 3), *CORNERS[:4]])
    state = kernel.state
    assert state[10][1, compiled.shapes.FOUR_THREES] == 1
    assert (
        compiled.evaluation._shape_value(state[10], state[11], 2) == -compiled.evaluation.SHAPE_WIN
    )
    # O's three along the top row, its end the board's edge: a four to make at (0, 3).
    answered = x_to_move(rules, x_cells, [(7, 3), (0, 0), (0, 1), (0, 2), (14, 14)]).state
    assert answered[10][2, compiled.shapes.FOUR] > 0
    assert (
        -compiled.evaluation.SHAPE_WIN
        < compiled.evaluation._shape_value(answered[10], answered[11], 2)
        < 0
    )


def test_a_node_its_shapes_decide_is_not_searched() -> None:
    """Below the root and above the leaves, a node where the side to move makes a four and
    an open three at once, unanswered, is valued as the leaf would be, won, after one node;
    the root is still searched (it must name a move): the four-three, whose line its
    shapes decide two plies lower."""
    kernel = x_to_move(Rules(15, 15, 5), [(7, 4), (7, 5), (7, 6), (5, 7), (6, 7)],
                       [(7, 3), *CORNERS[:4]])  # fmt: skip
    geometry, state, table, limits = kernel
    limits[0] = 0
    below = compiled.tree.node_value(
        geometry, state, table, 1, 4, -compiled.kernel.MATE, compiled.kernel.MATE, np.int64(1),
        False, False, limits,
    )  # fmt: skip
    assert below == compiled.evaluation.SHAPE_WIN
    assert limits[0] == 1
    value, move = compiled.tree.root_value(geometry, state, table, 1, 5, False, False, limits)
    assert (value, move) == (compiled.evaluation.SHAPE_WIN, 7 * 15 + 7)
    assert limits[0] > 2


@pytest.mark.parametrize("variant", [Variant.FREESTYLE, Variant.RENJU])
def test_two_open_threes_at_once_win_a_leaf_except_blacks_under_renju(variant: Variant) -> None:
    """X's open twos on row 7 and column 7 meet at (7, 7), where X makes two open threes at
    once: O, with no four or open four to make, stops one and X makes an open four of the
    other. Under renju it is black's foul, and only worth what its shapes are."""
    rules = Rules(15, 15, 5, variant=variant)
    state = x_to_move(rules, [(7, 5), (7, 6), (5, 7), (6, 7)], CORNERS[:4]).state
    value_to_o = compiled.evaluation._shape_value(state[10], state[11], 2)
    if variant is Variant.FREESTYLE:
        assert state[10][1, compiled.shapes.DOUBLE_THREES] >= 1
        assert value_to_o == -compiled.evaluation.SHAPE_WIN
    else:
        assert state[10][1, compiled.shapes.DOUBLE_THREES] == 0
        assert -compiled.evaluation.SHAPE_WIN < value_to_o < 0


def test_five_in_a_row_keeps_shapes_in_every_variant() -> None:
    """Other lengths keep the window counts' value at the leaves."""
    kept = {
        rules: compiled.state.keeps_shapes(Search(Board.empty(rules), Mark.X, TIME).kernel)
        for rules in (
            Rules(15, 15, 5),
            Rules(9, 9, 5),
            Rules(15, 15, 6),
            Rules(9, 9, 4),
            Rules(15, 15, 5, variant=Variant.STANDARD),
            Rules(15, 15, 5, variant=Variant.CARO),
            Rules(15, 15, 5, variant=Variant.RENJU),
        )
    }
    assert [rules for rules, keeps in kept.items() if not keeps] == [
        Rules(15, 15, 6),
        Rules(9, 9, 4),
    ]
