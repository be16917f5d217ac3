"""The application factory."""

from __future__ import annotations

import os
from collections.abc import Mapping
from importlib.resources import files
from typing import Any, cast

from flask import Flask, Response, request
from flask_cors import CORS
from flask_swagger_ui import get_swaggerui_blueprint

from service import observability
from service.answers import Answers
from service.engine import Engine
from service.lifecycle import Lifecycle
from service.metrics import Metrics
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
    metrics = Metrics(settings.metrics_dir)
    engine = engine if engine is not None else Engine.build()
    app.extensions["bestmove"] = Services(
        engine=engine,
        answers=Answers(engine, metrics),
        openapi_document=files("service").joinpath("openapi.yaml").read_bytes(),
        metrics=metrics,
        lifecycle=Lifecycle(),
    )
    # Browser frontends on other origins call every endpoint; there are no credentials.
    cors_hooks_before = list(app.after_request_funcs.get(None, []))
    CORS(
        app,
        origins=list(settings.cors_origins),
        # With every origin allowed, answer "*" rather than echo the caller's origin, so a
        # cached GET answer serves every origin and needs no Vary: Origin.
        send_wildcard=settings.cors_origins == ("*",),
        methods=["GET", "HEAD", "POST", "OPTIONS"],
        # CORS headers matter only to browsers, which send Origin on every cross-origin call;
        # server-to-server callers (game servers, bots) skip the work.
        always_send=False,
        expose_headers=["X-Request-ID", "ETag"],
        max_age=86400,
    )
    _only_for_browsers(app, cors_hooks_before)
    app.register_blueprint(api)
    app.register_blueprint(errors)
    app.register_blueprint(
        get_swaggerui_blueprint(
            "/docs",
            "/openapi.yaml",
            # No validator badge: it would send the contract to a public web service.
            config={"app_name": "bestmove API", "validatorUrl": None},
        )
    )
    # Last, so that the layer knows every route for its metric labels.
    observability.install(app, metrics, log_access=settings.access_log)
    return app


def _only_for_browsers(app: Flask, hooks_before: list[Any]) -> None:
    # flask-cors runs its generic matching on every response, though with always_send=False
    # it adds nothing without an Origin header; skipping the call then changes no answer and
    # saves about a tenth of a request's time in the app.
    hooks = app.after_request_funcs[None]
    (cors_hook,) = [hook for hook in hooks if hook not in hooks_before]

    def cors_for_browsers(response: Response) -> Response:
        if "HTTP_ORIGIN" not in request.environ:
            return response
        # Flask types hooks as possibly async; flask-cors's is a plain function.
        return cast(Response, cors_hook(response))

    hooks[hooks.index(cors_hook)] = cors_for_browsers
