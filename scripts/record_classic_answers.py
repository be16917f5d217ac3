"""Record what a revision's API answers on 3x3, for tests/test_classic_answers.py to replay.

Run it with the revision's package first on the path, from a worktree of that revision:

    git worktree add /tmp/before f6e176d
    PYTHONPATH=/tmp/before python scripts/record_classic_answers.py OUT.json.gz f6e176d

Every legal 3x3 position with either side to move, with `player` and without; analyses and
seeded lower levels of a seeded sample. Only `create_app()` of the revision is used.
"""

from __future__ import annotations

import gzip
import json
import random
import sys
from typing import Any

from service.api.app import create_app

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


def reachable() -> list[tuple[str, str]]:
    """Return every (board, side to move) of 3x3 that play reaches, either side starting."""
    seen: set[tuple[str, str]] = set()

    def walk(text: str, mover: str) -> None:
        if (text, mover) in seen:
            return
        seen.add((text, mover))
        if "." not in text or any(text[a] == text[b] == text[c] != "." for a, b, c in LINES):
            return
        for cell, mark in enumerate(text):
            if mark == ".":
                walk(text[:cell] + mover + text[cell + 1 :], "O" if mover == "X" else "X")

    walk("." * 9, "X")
    walk("." * 9, "O")
    return sorted(seen)


def main(output: str, revision: str) -> None:
    """Post every request to the revision's app and write the answers, gzipped."""
    client = create_app().test_client()
    positions = reachable()
    rng = random.Random(2026)  # noqa: S311 -- a seeded sample, not a secret
    requests: list[tuple[str, dict[str, Any]]] = []
    for text, mover in positions:
        requests.append(("/v1/move", {"board": text, "player": mover}))
        requests.append(("/v1/move", {"board": text}))
    for text, mover in rng.sample(positions, 600):
        requests.append(("/v1/analysis", {"board": text, "player": mover}))
    for text, mover in rng.sample(positions, 600):
        level = rng.choice(["hard", "medium", "easy"])
        body = {"board": text, "player": mover, "difficulty": level, "seed": rng.randrange(10**6)}
        requests.append(("/v1/move", body))
    recorded = []
    for path, body in requests:
        answer = client.post(path, json=body)
        recorded.append(
            {"path": path, "request": body, "status": answer.status_code, "answer": answer.json}
        )
    with gzip.open(output, "wt") as written:
        json.dump({"revision": revision, "answers": recorded}, written, separators=(",", ":"))
    print(f"{len(recorded)} answers of {revision} in {output}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
