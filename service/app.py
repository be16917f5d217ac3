"""The application factory."""

from __future__ import annotations

import os
from collections.abc import Mapping
from importlib.resources import files
from typing import Any

from flask import Flask

from service.engine import Engine
from service.problems import errors
from service.settings import Settings
from service.views import Services, api


def create_app(config: Mapping[str, Any] | None = None, *, engine: Engine | None = None) -> Flask:
    """Create the bestmove app; `config` overrides Flask settings, `engine` skips the solve."""
    app = Flask(__name__)
    settings = Settings.from_environ(os.environ)
    app.config.from_mapping(MAX_CONTENT_LENGTH=settings.max_body_bytes)
    if config is not None:
        app.config.update(config)
    app.extensions["bestmove"] = Services(
        engine=engine if engine is not None else Engine.build(),
        openapi_document=files("service").joinpath("openapi.yaml").read_bytes(),
    )
    app.register_blueprint(api)
    app.register_blueprint(errors)
    return app
