"""The compiled search of the benchmark is the service's heuristic search, move for move:
the same value, the same move and the same node count at every depth, so that its speed is
a fair measurement of the same search."""

from __future__ import annotations

import random

import pytest

from benchmarks.compiled_search import CompiledSearch, compiled_within
from service.game.board import Board, Mark
from service.game.rules import Rules
from service.game.search import Search
from tests import search_reference as brute
from tests.family_reference import Game

GAMES = [Rules(15, 15, 5), Rules(9, 9, 5), Rules(7, 7, 4, misere=True), Rules(6, 8, 3)]


@pytest.mark.parametrize("rules", GAMES, ids=lambda rules: rules.describe())
@pytest.mark.parametrize("seed", range(3))
def test_every_depth_finds_what_the_pure_search_finds(rules: Rules, seed: int) -> None:
    game = Game(rules.rows, rules.cols, rules.k, rules.misere)
    rng = random.Random(seed)
    position = None
    while position is None:
        position = brute.clustered_position(game, rng, rng.randrange(3, 14))
    text, mover = position
    board = Board.from_text(text, rules)
    pure, compiled = Search(board, Mark(mover), 600.0), CompiledSearch(board, Mark(mover))
    for depth in range(1, 5):
        nodes_before = pure.nodes
        value, move = pure._negamax_root(depth, exact=False)
        found = compiled.depth(depth)
        assert found is not None
        assert (found.value, found.move, found.nodes) == (value, move, pure.nodes - nodes_before)


def test_a_node_limit_stops_a_depth() -> None:
    board = Board.empty(Rules(15, 15, 5)).play(112, Mark.X)
    search = CompiledSearch(board, Mark.O)
    assert search.depth(6, node_limit=50) is None
    assert search.nodes == 51  # the node over the limit is counted, as the pure search does


def test_the_compiled_search_deepens_within_its_budget() -> None:
    board = Board.empty(Rules(15, 15, 5)).play(112, Mark.X)
    depth, nodes, _seconds = compiled_within(board, Mark.O, 0.2)
    assert depth >= 1
    assert nodes > 0
