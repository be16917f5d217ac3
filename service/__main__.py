"""`python -m service`: run the production server."""

from __future__ import annotations

import os
import sys

from service.server import ProductionServer, gunicorn_settings, prepare_metrics_dir
from service.settings import Settings, SettingsError


def main() -> None:
    """Serve the app with gunicorn, configured from the environment."""
    try:
        # Fail before gunicorn starts, with one line rather than a traceback per worker.
        Settings.from_environ(os.environ)
        settings = gunicorn_settings(os.environ)
    except SettingsError as error:
        sys.exit(f"bestmove: {error}")
    prepare_metrics_dir(os.environ)
    # Imported only now: the app's metrics library chooses its storage on import.
    from service.app import create_app  # noqa: PLC0415

    ProductionServer(create_app, settings).run()


if __name__ == "__main__":
    main()
