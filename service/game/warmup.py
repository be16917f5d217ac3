"""The compiled search made ready before any request needs it: `prepare` where a process
starts, `python -m service.game.warmup` where an image is built (numba's cache)."""

from __future__ import annotations

import sys
import time

from service.game import compiled
from service.game.analysis import analyse
from service.game.board import Board, Mark
from service.game.rules import Rules
from service.game.search import Search, search

#: Positions that take every compiled function down each of its paths: heuristic (with a
#: threat to block), by shapes (five in a row), exact, and misère.
_PREPARED = (
    (Rules(5, 5, 4), "X.O.. .XO.. ..X.. ..... ....."),
    (Rules(7, 7, 5), "....... ....... ..XO... ...X... ....... ....... ......."),
    (Rules(3, 3, 3), "X.. ... ..."),
    (Rules(5, 5, 3, misere=True), "X.... ..O.. ..... ..... ....."),
)


def prepare() -> int:
    """Load the compiled search from its cache, or compile it; return how many functions
    this call compiled. Run where the process starts, so that no request waits for it."""
    before = compiled.compilations()
    for rules, text in _PREPARED:
        board = Board.from_text(text.replace(" ", ""), rules)
        mover = Mark.O if board.count(Mark.X) > board.count(Mark.O) else Mark.X
        search(board, mover, 60.0, max_nodes=2_000)
        analyse(board, mover, 60.0, max_nodes=2_000)
        # What a search on two threads calls; a node limit keeps it short here.
        shared = Search(board, mover, 60.0, max_nodes=2_000)
        shared.shared_tree(2).deepen(shared.position.empty_cells()[0], shared.position.empty)
    compiled.state.make_shape_tables()
    return compiled.compilations() - before


def main() -> int:
    """`python -m service.game.warmup`: compile the search into its cache, saying so."""
    started = time.perf_counter()
    count = prepare()
    sys.stderr.write(
        f"bestmove: the compiled search is ready ({count} functions compiled) "
        f"in {time.perf_counter() - started:.1f} s\n"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
