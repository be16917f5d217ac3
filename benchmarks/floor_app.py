"""The floor: the least a Flask app behind gunicorn can do for POST /v1/move.

It parses the same JSON body and answers a constant JSON answer, so the service's ratio to
it measures everything the service adds: validation, the engine, logging, metrics, CORS.
Served as `gunicorn -w 2 benchmarks.floor_app:app` (default sync workers).
"""

from __future__ import annotations

from flask import Flask, request

app = Flask(__name__)

ANSWER = {
    "move": 4, "row": 1, "col": 1, "player": "O", "score": 0, "outcome": "draw",
    "plies_to_end": 8, "best_moves": [4], "board": ["X", "", "", "", "O", "", "", "", ""],
    "status": "in_progress", "winner": None, "winning_lines": [], "next_player": "X",
    "difficulty": "perfect", "optimal": True,
}  # fmt: skip


@app.post("/v1/move")
def move() -> dict[str, object]:
    """Parse the body, then answer the same thing whatever it says."""
    request.get_json()
    return ANSWER
