"""What keeps the console's pages safe in a browser: cookies, CSRF, origin, headers, forms.

- The session cookie is HttpOnly, SameSite=Strict, Secure when the request came over TLS,
  path ``/console``; it holds a random session id only (:mod:`api.console.sessions`).
- Every form posts a CSRF token: the session's own once signed in; before sign-in, a
  random token kept in a second short-lived cookie that the form must repeat (double submit).
  A request whose ``Origin`` names another origin is refused before the token is looked at.
- Every response carries a Content-Security-Policy that allows scripts, styles and images
  from the console's own origin only (no inline script, no inline style, no framing), and
  ``Cache-Control: no-store``: pages show audit data to one signed-in reader. The referrer
  policy is ``same-origin``, not ``no-referrer``: under ``no-referrer`` a browser sends
  ``Origin: null`` with a form, and the origin check could not tell the console's own forms
  from another site's.
"""

from __future__ import annotations

import hmac
import secrets
from urllib.parse import parse_qsl

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ledger.errors import InvalidInput, PayloadTooLarge, PermissionDenied

SESSION_COOKIE = "provledger_console"
SIGNIN_COOKIE = "provledger_console_signin"
SIGNIN_SECONDS = 1800
"""How long a sign-in form stays usable (its double-submit token's cookie)."""
FORM_LIMIT = 64 * 1024
"""The largest form body the console reads (a pasted checkpoint is a few hundred bytes)."""

CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
SECURITY_HEADERS = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
]


class SecurityHeaders:
    """Adds the security headers (and ``no-store`` unless the response set its own cache
    policy) to every console response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                names = {name.lower() for name, _ in headers}
                headers += [h for h in SECURITY_HEADERS if h[0] not in names]
                if b"cache-control" not in names:
                    headers.append((b"cache-control", b"no-store"))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


def is_tls(request: Request) -> bool:
    """Whether the request reached the server over TLS (or a proxy the server trusts
    said so: uvicorn's ``--proxy-headers`` sets the scheme)."""
    return request.url.scheme == "https"


def set_cookie(response: Response, request: Request, name: str, value: str, seconds: int) -> None:
    """Set a console cookie: HttpOnly, SameSite=Strict, Secure over TLS, path of the console."""
    response.set_cookie(
        name,
        value,
        max_age=seconds,
        path=console_root(request),
        secure=is_tls(request),
        httponly=True,
        samesite="strict",
    )


def clear_cookie(response: Response, request: Request, name: str) -> None:
    """Remove a console cookie."""
    response.delete_cookie(
        name, path=console_root(request), secure=is_tls(request), httponly=True, samesite="strict"
    )


def wants_html(request: Request) -> bool:
    """Whether the client asked for a page (a browser) rather than problem+json."""
    return "text/html" in request.headers.get("accept", "")


def console_root(request: Request) -> str:
    """The path the console is mounted at (``/console`` under the API's root path)."""
    return str(request.scope.get("root_path", "")) or "/"


def new_token() -> str:
    """A fresh random token (256 bits, URL-safe)."""
    return secrets.token_urlsafe(32)


def check_origin(request: Request) -> None:
    """Refuse (403) a request whose ``Origin`` or ``Sec-Fetch-Site`` says another site sent it.

    Browsers send ``Origin`` on every POST; a request without one (a script, a test client)
    still has to carry the CSRF token."""
    origin = request.headers.get("origin")
    expected = f"{request.url.scheme}://{request.url.netloc}"
    if origin is not None and origin != expected:
        raise PermissionDenied(f"origin {origin!r} is not this console's ({expected})")
    site = request.headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        raise PermissionDenied(f"a {site} request cannot act in the console")


def check_csrf(expected: str | None, given: str | None) -> None:
    """Refuse (403) a form or beacon whose CSRF token is missing or wrong."""
    if not expected or not given or not hmac.compare_digest(expected, given):
        raise PermissionDenied("csrf: the form's CSRF token is missing or does not match")


async def read_form(request: Request) -> dict[str, str]:
    """The ``application/x-www-form-urlencoded`` body (first value of each field).

    Another media type is 422 (field ``body``, rule ``form``); a body over
    :data:`FORM_LIMIT` is 413; a field that is not UTF-8 is 422 (rule ``utf-8``)."""
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type != "application/x-www-form-urlencoded":
        raise InvalidInput(
            "body", "form", "the console takes forms as application/x-www-form-urlencoded"
        )
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > FORM_LIMIT:
        raise PayloadTooLarge(f"a console form is at most {FORM_LIMIT} bytes")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > FORM_LIMIT:
            raise PayloadTooLarge(f"a console form is at most {FORM_LIMIT} bytes")
    try:
        text = body.decode("ascii")
        pairs = parse_qsl(text, keep_blank_values=True, errors="strict", max_num_fields=20)
    except UnicodeDecodeError:
        raise InvalidInput("body", "form", "a form body is percent-encoded ASCII") from None
    except ValueError as exc:
        raise InvalidInput("body", "form", f"the form body cannot be read: {exc}") from None
    form: dict[str, str] = {}
    for name, value in pairs:
        if "\x00" in value:
            raise InvalidInput(name, "nul", f"{name} contains U+0000")
        form.setdefault(name, value)
    return form
