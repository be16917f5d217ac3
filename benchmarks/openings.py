"""`python -m benchmarks.openings JUDGE`: the seeds of `benchmarks.gomocup`'s openings that
a judge finds even, for matches whose games a side's first move does not decide.

The benchmark's openings (three stones, X, O, X, within two cells of the centre) mostly
favour X: in a match of the search against itself, X won four games of five from them, so
most openings ended one game each way and said nothing of which side was stronger. A judge
(a Gomocup brain that reports its evaluation, as Rapfi does: `benchmarks.judge`) is given
each opening with O to move, and the seeds where X's standing is within `--within` of even
are printed, one a line, for `benchmarks.selfplay --seeds-file` (or `benchmarks.gomocup
--seeds`).

    python -m benchmarks.openings /opt/pbrain-rapfi --first-seed 10000 --count 800 \\
        --within 60 > /tmp/even.txt

Under renju (`--variant renju`: the judge is told `INFO rule 4`) black's three stones are
worth more, and the even openings are others: those for `benchmarks.selfplay --variant renju`.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator

from benchmarks.gomocup import add_variant_option, gomoku_of, opening
from benchmarks.judge import judge_position, value_of
from service.game.rules import Rules


def even_openings(
    command: list[str], rules: Rules, seeds: range, within: int, judge_ms: int
) -> Iterator[int]:
    """Yield the seeds whose opening the judge rates within `within` of even for X, as it
    rates them."""
    for seed in seeds:
        standing = value_of(
            judge_position(command, rules, tuple(opening(rules, seed)), True, judge_ms)
        )
        if standing is not None and abs(standing) <= within:
            yield seed


def main() -> None:
    """Print the seeds of the even openings among those asked, one a line."""
    parser = argparse.ArgumentParser(description="The openings a judge finds even.")
    parser.add_argument("judge", nargs="+", help="the judge's command line (a Gomocup brain)")
    parser.add_argument("--first-seed", type=int, default=10_000, help="the first seed looked at")
    parser.add_argument("--count", type=int, default=800, help="how many seeds to look at")
    parser.add_argument("--within", type=int, default=60, help="X's standing, either way")
    parser.add_argument("--judge-ms", type=int, default=200, help="the judge's time a position")
    add_variant_option(parser)
    arguments = parser.parse_args()
    rules = gomoku_of(arguments)
    seeds = range(arguments.first_seed, arguments.first_seed + arguments.count)
    for seed in even_openings(arguments.judge, rules, seeds, arguments.within, arguments.judge_ms):
        print(seed, flush=True)


if __name__ == "__main__":
    main()
