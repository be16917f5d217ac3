"""What a process keeps of the games clients name is bounded: a client cycling through every
game cannot make it keep them all (docs/OPERATIONS.md, benchmarks.growth)."""

from __future__ import annotations

from service.game import geometry as geometry_module
from service.game import rules as rules_module
from service.game.board import Board, Mark
from service.game.geometry import GEOMETRIES_KEPT, geometry_of
from service.game.rules import RULES_KEPT, Rules, line_index, rules_for, winning_lines
from service.game.search import search


def test_a_game_and_its_misere_form_share_one_geometry() -> None:
    normal, misere = Rules(9, 9, 4), Rules(9, 9, 4, misere=True)
    assert geometry_of(normal) is geometry_of(misere)
    assert geometry_of(normal).windows == winning_lines(9, 9, 4)


def test_the_geometries_kept_are_bounded_and_the_latest_kept() -> None:
    games = [Rules(rows, cols, 3) for rows in range(5, 16) for cols in range(5, 10)]
    assert len(games) > GEOMETRIES_KEPT
    for rules in games:
        board = Board.empty(rules).play(0, Mark.X)
        search(board, Mark.O, 0.001)
    kept = geometry_module._geometry.cache_info()
    assert kept.maxsize == GEOMETRIES_KEPT
    assert kept.currsize <= GEOMETRIES_KEPT
    latest = geometry_of(games[-1])
    assert geometry_of(games[-1]) is latest


def test_the_lines_and_the_names_of_games_kept_are_bounded() -> None:
    for rows in range(1, 16):
        for cols in range(1, 16):
            for k in range(1, max(rows, cols) + 1):
                line_index(rows, cols, k)
                rules_for(rows * cols, rows=rows, cols=cols, k=k)
    for kept in (winning_lines.cache_info(), line_index.cache_info()):
        assert kept.maxsize == rules_module.LINES_KEPT
        assert kept.currsize <= rules_module.LINES_KEPT
    names = rules_for.cache_info()
    assert names.maxsize == RULES_KEPT
    assert names.currsize <= RULES_KEPT
