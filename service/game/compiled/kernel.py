"""What every part of the compiled search shares: how its functions are compiled, the
values of proven ends, a search's arrays (`Kernel`: the game's geometry, the position, the
transposition table, the limits; made by `state.new_kernel`) and its clock, read every
CLOCK_EVERY nodes (`_out_of_time`).

The deadline is read from the operating system's monotonic clock (`clock_gettime`), called
from the compiled code itself, so that the search stops on its own clock without the lock.
"""

from __future__ import annotations

import time
from typing import NamedTuple

import numpy as np
import numpy.typing as npt
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from service.game.transposition import Table

#: How the functions that allocate nothing are compiled: as the others, but without
#: reference counts (numba's `_nrt=False`, an option its type stubs leave out).
_uncounted = njit(cache=True, nogil=True, _nrt=False)  # type: ignore[call-overload]


def _into_the_node(call, caller, callee) -> bool:  # type: ignore[no-untyped-def]
    """Return whether numba inlines a call to an `_inlined` function: where the tree's
    node (`tree._negamax`) makes it, directly or from a function inlined there."""
    del call, callee
    return bool(caller.func_id.func_name == "_negamax")


#: How the functions a node of the tree calls are compiled: as `_uncounted`, and inlined by
#: numba into the node. A compiled call passes the game's and the position's tuples of
#: arrays by value, some 250 words, and LLVM stops inlining the larger functions: inlined,
#: the tree searched the same nodes 1.13 times as fast (docs/STRENGTH.md). Only into the
#: node: inlined at every call, the search took about twice as long to compile.
_inlined = njit(cache=True, nogil=True, _nrt=False, inline=_into_the_node)  # type: ignore[call-overload]

#: Values of proven ends in the search: far above any heuristic, less the plies to them.
MATE = 1_000_000

HEURISTIC_LIMIT = MATE // 2

#: The deadline is read once in this many nodes. A node costs 2 to 10 µs, a look at the
#: clock 30 ns: every fourth node keeps a search within about 40 µs of its deadline (at 64 it
#: was 0.4 ms late, most of a short budget's margin) for well under 1% of its time.
CLOCK_EVERY = 4

#: What a compiled search returns when its deadline or node limit has passed.
ABORTED = -(2**62)

#: No node limit: more nodes than any search visits.
UNLIMITED_NODES = 2**62

Ints = npt.NDArray[np.int64]

#: Boards of more than this many cells are valued by the weights fitted to freestyle's
#: and renju's games (`evaluation.FITTED_MOVER_VALUES`); the answers on smaller ones never
#: change.
FITTED_ABOVE_CELLS = 16

#: Which weights value a shaped game's leaves (a state's rules row, column 3): Wine's,
#: those fitted to freestyle's games, or those fitted to renju's, a row per side to move.
WINES_WEIGHTS, FITTED_WEIGHTS, RENJU_FITTED_WEIGHTS = range(3)

#: What a window's ends mean (the last of `GeometryArrays`): its holder must not hold one
#: (PLAIN_ENDS, none listed in freestyle); nor may the opponent hold both (CARO_ENDS); only
#: black, player 1, must not hold one (RENJU_ENDS).
PLAIN_ENDS, CARO_ENDS, RENJU_ENDS = 0, 1, 2

#: A game as the compiled search takes it: windows (W x k), windows_of (cells x most, -1
#: padded), near (cells x most, -1 padded), weights, Zobrist keys (cells x 3), the centre
#: cell, k, each window's ends that its holder must not hold (W x 2, -1 padded), and what
#: the ends mean (PLAIN_ENDS, CARO_ENDS or RENJU_ENDS).
GeometryArrays = tuple[Ints, Ints, Ints, Ints, npt.NDArray[np.uint64], int, int, Ints, int]


class Kernel(NamedTuple):
    """One search's compiled state: the game's arrays, the position's, the table, the limits."""

    geometry: GeometryArrays
    #: cells, counts (W x 3), near_marks, promise, [value, empty], [hash], barred: 1 for a
    #: cell the mover at the root may not play (renju's fouls), else 0; and levels (3 x
    #: k+1): for each player and count, the windows it holds that many marks of and the
    #: other none, so that a look for lines one or two marks short skips the scan of every
    #: window when there are none; then, for the shapes (five in a row only): the rule's
    #: table of shapes (`shape_table`), each cell's key per direction (its 8 or 10
    #: neighbours), the tally of shapes each side could make (3 x 11: the shapes, then
    #: DOUBLE_FOURS, FOUR_THREES, DOUBLE_THREES), [1 if the game keeps shapes, the player
    #: whose double fours and threes are fouls or 0, 1 if one stone may stop two fives
    #: (caro)], each cell's neighbours per direction (cells x 4 x 8 or 10, -1 off the
    #: board), the directions each side makes a four and an open three in at each cell
    #: (cells x 3 x 2), and the shapes each side makes at each counted cell (empty, near a
    #: mark), packed 3 bits a direction (cells x 3; `shapes._tally_cell`), and those
    #: cells as bits, 64 a block (`shapes._tally_directions`).
    state: tuple[
        Ints, Ints, Ints, Ints, Ints, npt.NDArray[np.uint64], Ints, Ints,
        npt.NDArray[np.int8], Ints, Ints, Ints, Ints, Ints, Ints, Ints,
    ]  # fmt: skip
    #: The transposition table (`service.game.transposition`): read by `_probe`, written by
    #: `_store`.
    table: Table
    #: [nodes so far, the node limit, the deadline in monotonic nanoseconds, the best root
    #: move of the depth being searched (-1 until one is searched in full; a move whose
    #: null window shows it better than the best so far from then on), its value (then a
    #: bound: one more than the best before it)].
    limits: Ints


@intrinsic
def _monotonic_ns(typing_context):  # type: ignore[no-untyped-def]
    """Read CLOCK_MONOTONIC in nanoseconds, by a call to the C library, without the lock."""
    del typing_context

    def codegen(context, builder, signature, arguments):  # type: ignore[no-untyped-def]
        del context, signature, arguments
        int64 = ir.IntType(64)
        timespec = ir.LiteralStructType([int64, int64])  # time_t, long: 64-bit on 64-bit
        function = cgutils.get_or_insert_function(
            builder.module,
            ir.FunctionType(ir.IntType(32), [ir.IntType(32), timespec.as_pointer()]),
            "clock_gettime",
        )
        place = cgutils.alloca_once(builder, timespec)
        builder.call(function, [ir.Constant(ir.IntType(32), time.CLOCK_MONOTONIC), place])
        seconds = builder.load(cgutils.gep_inbounds(builder, place, 0, 0))
        nanoseconds = builder.load(cgutils.gep_inbounds(builder, place, 0, 1))
        return builder.add(builder.mul(seconds, ir.Constant(int64, 1_000_000_000)), nanoseconds)

    return types.int64(), codegen


@njit(cache=True, nogil=True)
def monotonic_ns() -> int:
    """Return the monotonic clock the compiled search reads, in nanoseconds."""
    return _monotonic_ns()  # type: ignore[call-arg]  # numba passes the context


@_uncounted
def _out_of_time(limits):  # type: ignore[no-untyped-def]
    """Count a node; return whether the node limit or the deadline has passed."""
    limits[0] += 1
    if limits[0] > limits[1]:
        return True
    return limits[0] % CLOCK_EVERY == 0 and _monotonic_ns() >= limits[2]  # type: ignore[call-arg]  # numba passes it


@njit(cache=True, nogil=True)
def out_of_time(limits):  # type: ignore[no-untyped-def]
    """Count a node; return whether the node limit or the deadline has passed
    (`_out_of_time`): for the tree shared between threads, whose nodes count as one
    thread's do."""
    return _out_of_time(limits)
