"""The console's ASGI app: its pages, its static files, and its errors rendered as pages."""

from __future__ import annotations

import json
from dataclasses import dataclass

from fastapi import FastAPI, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import RedirectResponse, Response
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from api.console.guard import SESSION_COOKIE, SecurityHeaders, console_root, wants_html
from api.console.state import PACKAGE, Console, NotSignedIn
from api.console.views import audit, engagement, prompt_cache, receipts, session, sources
from api.errors import ledger_problem, problem
from api.routes import add_routes
from ledger.errors import AuthenticationFailed, InvalidInput, LedgerError

__all__ = ["console_app"]


async def _page(request: Request, response: Response) -> Response:
    """A problem+json response as a page for a browser (same status, same fields), inside the
    console's frame: a reader who is signed in keeps the navigation."""
    if not wants_html(request):
        return response
    body = json.loads(bytes(response.body))
    console: Console = request.app.state.console
    session = None
    cookie = request.cookies.get(SESSION_COOKIE)
    if cookie:
        try:
            session = await run_in_threadpool(console.sessions.find, cookie)
        except LedgerError:  # the page says what went wrong; the frame can do without
            session = None
    page = console.render(
        request, "problem.html", {"problem": body}, status=response.status_code, session=session
    )
    for name in ("www-authenticate", "retry-after"):
        if name in response.headers:
            page.headers[name] = response.headers[name]
    return page


@dataclass(frozen=True)
class _RouteTemplate:
    """A route as the API's request metrics name it: its template under the mount."""

    path: str


class _ApiState:
    """Keeps the API's middleware working inside the mount, where ``scope["app"]`` is the
    console and routes are templates relative to ``/console``:

    - hands the API's services to the console app's state (``PositionHeader`` reads
      ``scope["app"].state.services`` when the response starts);
    - names the matched route with the mount's prefix (``/console/receipts/{receipt_id}``),
      so the request metrics do not confuse it with an API route."""

    def __init__(self, app: ASGIApp, api: FastAPI) -> None:
        self.app = app
        self.api = api

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        scope["app"].state.services = self.api.state.services
        try:
            await self.app(scope, receive, send)
        finally:
            path = getattr(scope.get("route"), "path", None)
            if isinstance(path, str):
                scope["route"] = _RouteTemplate(str(scope.get("root_path", "")) + path)


def console_app(api: FastAPI) -> FastAPI:
    """The console, to be mounted on ``api`` at ``/console`` (it reads ``api``'s services)."""
    app = FastAPI(openapi_url=None, docs_url=None, redoc_url=None)
    app.state.console = Console(api)
    app.add_middleware(SecurityHeaders)
    app.add_middleware(_ApiState, api=api)

    async def ledger_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, LedgerError)
        return await _page(request, ledger_problem(exc))

    async def not_signed_in(request: Request, exc: Exception) -> Response:
        if request.method in ("GET", "HEAD") and wants_html(request):
            return RedirectResponse(console_root(request), status_code=303)
        return await _page(request, ledger_problem(AuthenticationFailed("sign in to the console")))

    async def invalid(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        errors = [
            {
                "field": ".".join(str(part) for part in err.get("loc", ())),
                "rule": err.get("type", "invalid"),
                "message": err.get("msg", "invalid value"),
            }
            for err in exc.errors()
        ]
        return await _page(request, ledger_problem(InvalidInput.many(errors)))

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, StarletteHTTPException)
        title = {404: "Not found", 405: "Method not allowed"}.get(exc.status_code, "HTTP error")
        slug = title.lower().replace(" ", "-")
        return await _page(request, problem(exc.status_code, title, str(exc.detail), slug))

    app.add_exception_handler(LedgerError, ledger_error)
    app.add_exception_handler(NotSignedIn, not_signed_in)
    app.add_exception_handler(RequestValidationError, invalid)
    app.add_exception_handler(StarletteHTTPException, http_error)
    app.mount("/static", StaticFiles(directory=PACKAGE / "static"), name="static")
    for module in (session, receipts, sources, audit, engagement, prompt_cache):
        add_routes(app, module.router)
    return app
