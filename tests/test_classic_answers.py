"""Answers on 3x3 never change: today's service answers, field for field, what the service
answered before the family existed (revision f6e176d, recorded by
scripts/record_classic_answers.py), plus the `rules` it now names."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests import reference
from tests.helpers import CLASSIC_RULES

RECORDED = Path(__file__).parent / "data" / "classic_answers_f6e176d.json.gz"


def recorded_answers() -> list[dict[str, Any]]:
    with gzip.open(RECORDED, "rt") as recorded:
        answers: list[dict[str, Any]] = json.load(recorded)["answers"]
    return answers


def test_the_recording_covers_every_legal_position_and_every_kind_of_request() -> None:
    answers = recorded_answers()
    plain_moves = {a["request"]["board"] for a in answers if "player" not in a["request"]}
    # Every board play reaches, either side starting, as the independent reference finds them.
    assert plain_moves == {text for text, _ in reference.reachable_positions()}
    assert {a["path"] for a in answers} == {"/v1/move", "/v1/analysis"}
    levels = {a["request"].get("difficulty") for a in answers}
    assert levels == {None, "hard", "medium", "easy"}


@pytest.mark.parametrize("chunk", range(4))
def test_every_recorded_request_gets_the_recorded_answer_and_the_classic_rules(
    client: FlaskClient, chunk: int
) -> None:
    answers = recorded_answers()[chunk::4]
    differing = []
    for recorded in answers:
        response = client.post(recorded["path"], json=recorded["request"])
        answer = response.get_json()
        rules = answer.pop("rules", None)
        if (response.status_code, answer) != (recorded["status"], recorded["answer"]):
            differing.append((recorded["request"], answer, recorded["answer"]))
        elif response.status_code == 200:
            assert rules == CLASSIC_RULES, recorded["request"]
    assert not differing, f"{len(differing)} answers changed; the first: {differing[0]}"
