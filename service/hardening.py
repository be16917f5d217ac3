"""Headers every answer carries, whatever produced it."""

from __future__ import annotations

from flask import Flask, Response

#: Browsers must take each answer as the type it says it is, never guess another.
EVERY_ANSWER = {"X-Content-Type-Options": "nosniff"}


def install(app: Flask) -> None:
    """Add the hardening headers to every response of the app."""

    @app.after_request
    def harden(response: Response) -> Response:
        response.headers.update(EVERY_ANSWER)
        return response
