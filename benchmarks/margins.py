"""`python -m benchmarks.margins`: how far a node's searched value stands from its static
value, by its plies to the leaves: what a margin of futility pruning (or of razoring, its
mirror below the window: docs/STRENGTH.md) rests on.

Near the leaves the tree leaves a null-window node unsearched where its static value (its
shapes, for the side to move: `compiled.evaluation._shape_value`) less a margin is at least
beta (futility, `compiled.tree.FUTILITY_MARGINS`). How far is far enough is measured here:
from the threads benchmark's positions (`benchmarks.threads.positions`: 15x15 freestyle)
seeded walks of one to six of the tree's likeliest moves (each one of a node's first six)
reach nodes where the side to move has no four to make and no five to stop (where neither
side's run of fours could be what the shapes miss); each is searched 1, 2 and 3 plies deep
with the full window, and its gap (value less static value) kept. Printed by depth: the
gaps' percentiles, the futility margin and the share of nodes it would misjudge at the
window's edge (a gap below minus the margin: pruned as at least beta, worth less). A
depth-0 node (a reduced reply) is valued as a leaf's parent, as depth 1's are.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Sequence

import numpy as np

from benchmarks.threads import positions
from service.game import compiled
from service.game.board import Mark
from service.game.compiled.evaluation import SHAPE_WIN
from service.game.compiled.kernel import MATE
from service.game.compiled.shapes import FIVE, FOUR, OPEN_FOUR
from service.game.search import Search
from service.game.warmup import prepare

#: The depths measured: those the margins apply to (depth 0 reads as 1).
DEPTHS = (1, 2, 3)

#: Each node's moves a walk picks among, the likeliest first.
WALK_WIDTH = 6

#: The table's slots for each node's search: fixed, so that no budget sizes it.
TABLE_SLOTS = 2**14


def gaps(count: int, walks: int, seed: int) -> dict[int, list[int]]:
    """Return, by depth, the gaps (searched value less static value) of the walks' nodes."""
    chooser = random.Random(seed)
    found: dict[int, list[int]] = {depth: [] for depth in DEPTHS}
    for board, mover in positions(count):
        for _ in range(walks):
            geometry, state, table, limits = Search(
                board, mover, 600.0, table_slots=TABLE_SLOTS
            ).kernel
            player = 1 if mover is Mark.X else 2
            plies = chooser.randint(1, 6)
            ended = False
            for ply in range(plies):
                moves = compiled.tree.node_moves(
                    geometry, state, table, player, 2, np.int64(ply), False
                )
                move = int(moves[chooser.randrange(min(WALK_WIDTH, len(moves)))])
                ended = bool(compiled.state.play_move(geometry, state, move, player))
                if ended:
                    break
                player = 3 - player
            tally = state[10]
            fours = tally[player, FOUR] + tally[player, OPEN_FOUR] + tally[player, FIVE]
            if ended or fours > 0 or tally[3 - player, FIVE] > 0:
                continue
            static = -int(compiled.evaluation._shape_value(tally, state[11], 3 - player))
            if abs(static) >= SHAPE_WIN:
                continue
            for depth in DEPTHS:
                value = compiled.tree.node_value(
                    geometry, state, table, player, depth, -MATE - 1, MATE + 1,
                    np.int64(plies), False, False, limits,
                )  # fmt: skip
                found[depth].append(int(value) - static)
    return found


def misjudged(found: Sequence[int], margin: int) -> float:
    """Return the share of nodes futility pruning would misjudge at this margin: those
    whose gap is below minus the margin."""
    return float(np.mean(np.array(found) < -margin))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--positions", type=int, default=24)
    parser.add_argument("--walks", type=int, default=30, help="walks from each position")
    parser.add_argument("--seed", type=int, default=1)
    arguments = parser.parse_args()
    prepare()
    found = gaps(arguments.positions, arguments.walks, arguments.seed)
    margins = compiled.tree.FUTILITY_MARGINS
    print("| depth | nodes | gap: 5th | 25th | median | 75th | 95th percentile "
          "| futility margin | misjudged |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|")
    for depth, margin in enumerate(margins):
        values = found[max(depth, 1)]
        cuts = np.percentile(values, [5, 25, 50, 75, 95]).round().astype(int)
        share = misjudged(values, margin)
        print(f"| {depth} | {len(values)} | " + " | ".join(f"{cut:,}" for cut in cuts)
              + f" | {margin:,} | {share:.1%} |")  # fmt: skip


if __name__ == "__main__":
    main()
