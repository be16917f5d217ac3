"""`python -m service.healthcheck`: exit 0 if the local server answers /healthz, else 1.

For container health checks in images that have no curl.
"""

from __future__ import annotations

import sys
import urllib.request

from service.ops.environment import Environment, SettingsError


def main() -> int:
    """Ask the server on this machine's loopback for /healthz and report the answer."""
    try:
        port = Environment.of_process().port
    except SettingsError as error:
        print(f"unhealthy: {error}", file=sys.stderr)  # noqa: T201 -- a command's own output
        return 1
    url = f"http://127.0.0.1:{port}/healthz"
    try:
        with urllib.request.urlopen(url, timeout=3) as response:
            healthy = response.status == 200
    except OSError as error:
        print(f"unhealthy: {url}: {error}", file=sys.stderr)  # noqa: T201
        return 1
    return 0 if healthy else 1


if __name__ == "__main__":
    sys.exit(main())
