"""bestmove: a stateless JSON API that answers the best tic-tac-toe move."""

from service.app import create_app

__all__ = ["create_app"]
