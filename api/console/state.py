"""What the console shares between requests: the API's services, sessions, the templates;
and the route dependencies that hand them out."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Request
from fastapi.concurrency import run_in_threadpool
from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.responses import HTMLResponse, Response

from api.console import words
from api.console.dates import when
from api.console.guard import SESSION_COOKIE, console_root
from api.console.sessions import ConsoleSession, SessionStore
from api.services import Services
from projections import engagement
from projections.session_rows import SessionRows

PACKAGE = Path(__file__).parent


class NotSignedIn(Exception):
    """The request carries no live console session."""


class Console:
    """The console's long-lived objects, built on first use once the API's lifespan has
    built its services (the console is mounted on that app and reads its state)."""

    def __init__(self, api: FastAPI) -> None:
        self.api = api
        self.templates = Environment(
            loader=FileSystemLoader(PACKAGE / "templates"),
            autoescape=select_autoescape(("html",), default_for_string=True, default=True),
            trim_blocks=True,
            lstrip_blocks=True,
            auto_reload=False,  # templates ship with the package; no stat per page
        )
        self.templates.filters["when"] = when
        self.templates.globals["words"] = words
        self._lock = threading.Lock()
        self._sessions: SessionStore | None = None

    @property
    def services(self) -> Services:
        """The API's services."""
        services: Services = self.api.state.services
        return services

    def _build(self) -> None:
        with self._lock:
            if self._sessions is not None:
                return
            services = self.services
            engine = services.read_side.db.sync
            engagement.create_tables(engine)
            self._sessions = SessionStore(SessionRows(engine), services.ledger)

    @property
    def sessions(self) -> SessionStore:
        """The session table."""
        if self._sessions is None:
            self._build()
        assert self._sessions is not None
        return self._sessions

    def render(
        self,
        request: Request,
        template: str,
        context: dict[str, Any],
        status: int = 200,
        session: ConsoleSession | None = None,
    ) -> HTMLResponse:
        """A page: ``template`` with ``context``, the console's root and the reader's CSRF
        token (every value autoescaped)."""
        values = {
            **context,
            "root": console_root(request).rstrip("/"),
            "session": session,
            "csrf": session.csrf if session else context.get("csrf"),
        }
        page = self.templates.get_template(template).render(values)
        return HTMLResponse(page, status_code=status)


def get_console(request: Request) -> Console:
    """The console of the app serving this request."""
    console: Console = request.app.state.console
    return console


ConsoleDep = Annotated[Console, Depends(get_console)]


def signed_in(console: Console, request: Request) -> ConsoleSession:
    """The signed-in reader, or :class:`NotSignedIn` (blocking: call it in a thread)."""
    found = console.sessions.find(request.cookies.get(SESSION_COOKIE))
    if found is None:
        raise NotSignedIn
    return found


async def current_session(request: Request, console: ConsoleDep) -> ConsoleSession:
    """The signed-in reader, or :class:`NotSignedIn` (a page answers with the sign-in form)."""
    return await run_in_threadpool(signed_in, console, request)


SessionDep = Annotated[ConsoleSession, Depends(current_session)]


def download(body: Any, filename: str) -> Response:
    """``body`` as a JSON file download named ``filename``."""
    return Response(
        json.dumps(body, indent=2, ensure_ascii=False),
        media_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )
