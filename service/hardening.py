"""Headers every answer carries, whatever produced it (added by the observing WSGI layer)."""

from __future__ import annotations

#: Browsers must take each answer as the type it says it is, never guess another.
EVERY_ANSWER = {"X-Content-Type-Options": "nosniff"}
