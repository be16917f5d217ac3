"""The application factory: the HTTP API around a solved engine."""

from __future__ import annotations

from collections.abc import Callable
from importlib.resources import files
from typing import cast

from flask import Flask, Response, request
from flask_cors import CORS
from flask_swagger_ui import get_swaggerui_blueprint

from service.api.admission import Admission, SearchListener, SearchSlots, ThreadSlots
from service.api.answers import AnswerListener, Answers
from service.api.app_settings import AppSettings
from service.api.errors import as_problem, errors
from service.api.lifecycle import Lifecycle
from service.api.long_work import step_aside
from service.api.services import EXTENSION_KEY, Services
from service.api.views import api
from service.game.engine import Engine
from service.game.rules import FAMILY

#: Browsers must take each answer as the type it says it is, never guess another.
EVERY_ANSWER = {"X-Content-Type-Options": "nosniff"}


def create_app(
    settings: AppSettings | None = None,
    *,
    engine: Engine | None = None,
    on_answer: AnswerListener | None = None,
    on_search: SearchListener | None = None,
    search_slots: SearchSlots | None = None,
) -> Flask:
    """Create the bestmove API; `on_answer` hears every move's outcome, `on_search` every
    search made or refused.

    Without `engine`, every game up to 4x4 is solved in memory here, before the app exists
    (about 15 s); a server opens them from disk instead (service.ops). Without
    `search_slots`, the settings' number of searches may run at once in this process; a
    server shares slots between its worker processes instead.
    """
    settings = settings if settings is not None else AppSettings()
    app = Flask(__name__)
    app.config.from_mapping(MAX_CONTENT_LENGTH=settings.max_body_bytes)
    engine = engine if engine is not None else Engine.build(FAMILY)
    app.extensions[EXTENSION_KEY] = Services(
        engine=engine,
        answers=Answers(
            engine,
            on_answer,
            settings.answer_cache_bytes,
            Admission(
                settings.default_budget_ms,
                settings.max_budget_ms,
                search_slots if search_slots is not None else ThreadSlots(settings.search_slots),
                on_search,
                before_search=step_aside,
                search_threads=settings.search_threads,
            ),
        ),
        openapi_document=files("service.api").joinpath("openapi.yaml").read_bytes(),
        lifecycle=Lifecycle(),
    )
    # Browser frontends on other origins call every endpoint; there are no credentials.
    CORS(
        app,
        origins=list(settings.cors_origins),
        # With every origin allowed, answer "*" rather than echo the caller's origin, so a
        # cached GET answer serves every origin and needs no Vary: Origin.
        send_wildcard=settings.cors_origins == ("*",),
        methods=["GET", "HEAD", "POST", "OPTIONS"],
        # CORS headers matter only to browsers, which send Origin on every cross-origin call.
        always_send=False,
        # Flask runs after-request hooks on error answers too, so nothing more is needed.
        intercept_exceptions=False,
        expose_headers=["X-Request-ID", "ETag"],
        max_age=86400,
    )
    _every_answer_then_cors(app)
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
    return app


def _every_answer_then_cors(app: Flask) -> None:
    """Replace flask-cors's hook, just registered, with one that puts every answer in the
    envelope and adds its headers, then runs flask-cors's for requests with an Origin.

    Without an Origin flask-cors adds nothing (always_send is off), but it still works
    through every resource pattern to find that out: a tenth of a table answer's time. One
    hook rather than two, since Flask looks at each hook's kind on every request; an answer
    the envelope replaces still gets CORS.
    """
    # flask-cors registers a plain function of the response, the only hook so far (none
    # when a benchmark prices the app without CORS).
    registered = app.after_request_funcs.get(None, [])
    cors = cast(Callable[[Response], Response], registered.pop()) if registered else None

    def every_answer(response: Response) -> Response:
        response = as_problem(response)
        for name, value in EVERY_ANSWER.items():
            response.headers[name] = value
        if cors is not None and "HTTP_ORIGIN" in request.environ:
            return cors(response)
        return response

    app.after_request(every_answer)
