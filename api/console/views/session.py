"""Sign in with an API key (exchanged for a session) and sign out."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from starlette.responses import RedirectResponse, Response

from api.console.guard import (
    SESSION_COOKIE,
    SIGNIN_COOKIE,
    SIGNIN_SECONDS,
    check_csrf,
    check_origin,
    clear_cookie,
    console_root,
    new_token,
    read_form,
    set_cookie,
    wants_html,
)
from api.console.state import ConsoleDep, SessionDep
from ledger.errors import AuthenticationFailed, PermissionDenied
from ledger.keys.api_keys import Scope

router = APIRouter()


def _home(request: Request) -> str:
    return console_root(request).rstrip("/") + "/receipts"


def _form(
    request: Request,
    console: ConsoleDep,
    error: str | None = None,
    status: int = 200,
) -> Response:
    """The sign-in form with a fresh double-submit token, and the error of the last try."""
    token = new_token()
    context = {"csrf": token, "error": error}
    response = console.render(request, "signin.html", context, status=status)
    set_cookie(response, request, SIGNIN_COOKIE, token, SIGNIN_SECONDS)
    return response


@router.get("/")
async def sign_in_form(request: Request, console: ConsoleDep) -> Response:
    """The sign-in form, or the receipts for a reader already signed in."""
    found = await run_in_threadpool(console.sessions.find, request.cookies.get(SESSION_COOKIE))
    if found is not None:
        return RedirectResponse(_home(request), status_code=303)
    return _form(request, console)


@router.post("/session")
async def sign_in(request: Request, console: ConsoleDep) -> Response:
    """Exchange an API key holding ``audit:read`` for a session cookie (303 to the receipts).

    401 for an unknown or revoked key, 403 for a key without ``audit:read`` or a form whose
    CSRF token does not repeat the sign-in cookie's. A browser gets the form again with the
    error beside the field (and a fresh token); anything else gets problem+json."""
    try:
        return await _exchange(request, console)
    except (AuthenticationFailed, PermissionDenied) as exc:
        if not wants_html(request):
            raise
        if isinstance(exc, AuthenticationFailed):
            response = _form(request, console, str(exc), 401)
            response.headers["www-authenticate"] = "Bearer"
            return response
        detail = str(exc)
        if detail.startswith("csrf:"):  # a form kept open past its token, or not ours
            detail = "the sign-in form had expired; paste the key again"
        return _form(request, console, detail, 403)


async def _exchange(request: Request, console: ConsoleDep) -> Response:
    check_origin(request)
    form = await read_form(request)
    check_csrf(request.cookies.get(SIGNIN_COOKIE), form.get("csrf"))
    secret = form.get("api_key", "").strip()
    if not secret:
        raise AuthenticationFailed("api_key: paste an API key to sign in")
    principal = await run_in_threadpool(console.services.api_keys.authenticate, secret)
    if principal is None:
        raise AuthenticationFailed("unknown or revoked API key")
    if not principal.allows(Scope.AUDIT_READ.value):
        raise PermissionDenied("this API key lacks the 'audit:read' scope the console needs")
    session_id, seconds = await run_in_threadpool(console.sessions.open, principal)
    response = RedirectResponse(_home(request), status_code=303)
    set_cookie(response, request, SESSION_COOKIE, session_id, seconds)
    clear_cookie(response, request, SIGNIN_COOKIE)
    return response


@router.post("/session/end")
async def sign_out(request: Request, console: ConsoleDep, session: SessionDep) -> Response:
    """End the session and clear its cookie (303 to the sign-in form)."""
    check_origin(request)
    form = await read_form(request)
    check_csrf(session.csrf, form.get("csrf"))
    await run_in_threadpool(console.sessions.end, request.cookies.get(SESSION_COOKIE))
    response = RedirectResponse(console_root(request), status_code=303)
    clear_cookie(response, request, SESSION_COOKIE)
    return response
