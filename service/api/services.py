"""What the views share, built once per app by the factory."""

from __future__ import annotations

from dataclasses import dataclass

from flask import current_app

from service.api.answers import Answers
from service.api.lifecycle import Lifecycle
from service.game.engine import Engine

#: Where the factory keeps the app's services, in Flask's own place for extensions.
EXTENSION_KEY = "bestmove"


@dataclass(frozen=True, slots=True)
class Services:
    """The solver, the answers made from it, the contract, and the process's readiness."""

    engine: Engine
    answers: Answers
    openapi_document: bytes
    lifecycle: Lifecycle


def services() -> Services:
    """Return the current app's shared services."""
    found: Services = current_app.extensions[EXTENSION_KEY]
    return found
