"""Structured JSON logs with a request id bound to every line of a request."""

from __future__ import annotations

import logging
import re
import sys
import time
import uuid
from typing import IO, Any

import structlog
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.metrics import observe_request
from api.tracing import add_trace_ids, end_request_span, request_span

_REQUEST_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")
log = structlog.get_logger("provledger.http")


_HANDLER_MARK = "_provledger_handler"


def configure_logging(
    level: str = "INFO", json: bool = True, stream: IO[str] | None = None, cache: bool = True
) -> None:
    """One JSON line per event, for structlog's loggers and the stdlib's (uvicorn's) alike.

    structlog hands its event dict to the stdlib root logger, whose one handler renders it
    and every foreign record (``uvicorn.error``, libraries) through the same processors, so
    each line carries ``timestamp``, ``level``, ``logger``, the bound ``request_id``, with
    tracing on the current ``trace_id`` and ``span_id``, and, for an exception, its
    ``exception`` text. ``stream`` defaults to stderr; ``cache=False``
    lets a test configure and reset logging again.
    """
    numeric = logging.getLevelNamesMapping().get(level.upper(), logging.INFO)
    shared: list[structlog.typing.Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        add_trace_ids,
    ]
    renderer: structlog.typing.Processor = (
        structlog.processors.JSONRenderer() if json else structlog.dev.ConsoleRenderer()
    )
    formatter = structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=shared,
        processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            structlog.processors.format_exc_info if json else _keep,
            renderer,
        ],
    )
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(formatter)
    setattr(handler, _HANDLER_MARK, True)
    root = logging.getLogger()
    root.handlers[:] = [h for h in root.handlers if not getattr(h, _HANDLER_MARK, False)]
    root.addHandler(handler)
    root.setLevel(numeric)
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        # Through the root's JSON handler at the root's level, whatever uvicorn's own logging
        # configuration (its handlers, ``propagate: False``, its level) set before.
        server_logger = logging.getLogger(name)
        server_logger.handlers.clear()
        server_logger.propagate = True
        server_logger.setLevel(logging.NOTSET)
    structlog.configure(
        processors=[*shared, structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        cache_logger_on_first_use=cache,
    )


def _keep(logger: object, name: str, event_dict: structlog.typing.EventDict) -> Any:
    """The console renderer formats exceptions itself."""
    return event_dict


def _level_of(status: int) -> str:
    """The log level a response deserves: 5xx error, 4xx warning, anything else info."""
    if status >= 500:
        return "error"
    if status >= 400:
        return "warning"
    return "info"


class RequestContextMiddleware:
    """Give each request an id (the caller's ``X-Request-ID`` if sane), log its outcome.

    Only method, path, status and duration are logged: never headers, so neither API keys
    nor other credentials reach the log.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        supplied = dict(scope["headers"]).get(b"x-request-id", b"").decode("latin-1")
        request_id = supplied if _REQUEST_ID.match(supplied) else uuid.uuid4().hex
        structlog.contextvars.clear_contextvars()
        structlog.contextvars.bind_contextvars(request_id=request_id)
        started = time.perf_counter()
        status = 500
        response_started = False

        async def send_with_id(message: Message) -> None:
            nonlocal status, response_started
            if message["type"] == "http.response.start":
                response_started = True
                status = message["status"]
                headers = list(message.get("headers", []))
                headers.append((b"x-request-id", request_id.encode("ascii")))
                message["headers"] = headers
            await send(message)

        failure: Exception | None = None
        with request_span(scope["method"], scope["headers"], request_id) as span:
            try:
                await self.app(scope, receive, send_with_id)
            except Exception as exc:  # answered here: the server does not log it a second time
                failure = exc
                if not response_started:
                    await _internal_error(scope, receive, send_with_id)
            finally:
                seconds = time.perf_counter() - started
                route = getattr(scope.get("route"), "path", None)  # the template, from routing
                observe_request(scope["method"], route, status, seconds)
                if span is not None:
                    end_request_span(span, scope["method"], route, status)
                fields: dict[str, Any] = {
                    "method": scope["method"],
                    "path": scope["path"],
                    "status": status,
                    "duration_ms": round(seconds * 1000, 3),
                    "request_id": request_id,
                }
                if failure is not None:
                    fields.update(error=type(failure).__name__, exc_info=failure)
                getattr(log, _level_of(status))("request", **fields)
                structlog.contextvars.clear_contextvars()


async def _internal_error(scope: Scope, receive: Receive, send: Send) -> None:
    """The problem+json 500 for an exception no handler answered (logged by the caller)."""
    from api.errors import problem  # the error table imports the app's domain errors

    response = problem(500, "Internal error", "an unexpected error occurred", "internal")
    await response(scope, receive, send)
