"""bestmove: a stateless JSON API that answers the best tic-tac-toe move."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from service.app import create_app

__all__ = ["create_app"]


def __getattr__(name: str) -> Any:
    # Imported on first use, so that `python -m service` can prepare the environment the
    # app's libraries read on import, and the container health probe stays light.
    if name == "create_app":
        from service.app import create_app  # noqa: PLC0415

        return create_app
    raise AttributeError(f"module 'service' has no attribute {name!r}")
