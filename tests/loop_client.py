"""A test client that sends each request into the app's event loop in one hop.

Starlette's ``TestClient`` runs the app on an event loop in another thread and, per request,
crosses between the test's thread and that loop many times (creating events, a memory stream
and a cancel scope on the loop, starting the app, waiting for the response to start, then once
per body chunk): with the installed Starlette up to 17 crossings, 2-4 ms a request, several
times what the API spends answering most of them. :class:`LoopClient` is the same client
(lifespan, portal, ``app.state``) whose transport hands the whole request to the loop at once
and takes back the whole response. The app sees the same ASGI scope, and an exception the app
raises is re-raised, or answered as an empty 500, exactly as ``TestClient`` does.

Responses are buffered whole, so it is for answers that end (none of the API's is a stream
that waits on the client).
"""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import unquote

from fastapi.testclient import TestClient
from starlette.types import ASGIApp, Message

# The HTTP client library the test client is built on, chosen as Starlette chooses it.
try:
    import httpx2 as httpx
except ModuleNotFoundError:  # an older Starlette's test client, on httpx
    import httpx  # type: ignore[no-redef]


class _OneHop(httpx.BaseTransport):
    def __init__(self, client: LoopClient, fallback: httpx.BaseTransport) -> None:
        self._client = client
        self._fallback = fallback

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        portal = self._client.portal
        if portal is None or request.url.scheme not in ("http", "https"):
            return self._fallback.handle_request(request)  # outside ``with``, or a websocket
        scope = _scope(self._client, request)
        status, headers, body, error = portal.call(_run, self._client.app, scope, request.read())
        raising = self._client.raise_server_exceptions
        if error is not None and raising:
            raise error
        if status is None:
            if raising:
                raise AssertionError("TestClient did not receive any response.")
            status, headers, body = 500, [], b""
        if request.method == "HEAD":
            body = b""
        return httpx.Response(
            status, headers=headers, stream=httpx.ByteStream(body), request=request
        )

    def close(self) -> None:
        self._fallback.close()


def _scope(client: LoopClient, request: httpx.Request) -> dict[str, Any]:
    """The ASGI scope Starlette's test transport builds for an HTTP request."""
    url = request.url
    port = url.port or {"http": 80, "https": 443}[url.scheme]
    headers = [] if "host" in request.headers else [(b"host", url.netloc)]
    headers += [(k.lower().encode(), v.encode()) for k, v in request.headers.multi_items()]
    return {
        "type": "http",
        "http_version": "1.1",
        "method": request.method,
        "path": unquote(url.path),
        "raw_path": url.raw_path.split(b"?", 1)[0],
        "root_path": "",
        "scheme": url.scheme,
        "query_string": url.query,
        "headers": headers,
        "client": ("testclient", 50000),
        "server": [url.raw_host.decode("ascii"), port],
        "extensions": {"http.response.debug": {}, "http.response.trailers": {}},
        "state": client.app_state.copy(),
    }


async def _run(
    app: ASGIApp, scope: dict[str, Any], body: bytes
) -> tuple[int | None, list[tuple[str, str]], bytes, BaseException | None]:
    """Run the app on one request; its status (None if it never started), headers, body and
    the exception it raised, if any."""
    sent = False
    done = asyncio.Event()
    status: int | None = None
    headers: list[tuple[str, str]] = []
    chunks: list[bytes] = []

    async def receive() -> Message:
        nonlocal sent
        if sent:
            await done.wait()
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: Message) -> None:
        nonlocal status, headers
        if message["type"] == "http.response.start":
            status = message["status"]
            headers = [(k.decode(), v.decode()) for k, v in message.get("headers", [])]
        elif message["type"] == "http.response.body":
            chunks.append(bytes(message.get("body", b"")))
            if not message.get("more_body", False):
                done.set()

    try:
        await app(scope, receive, send)
    except Exception as error:  # handed back to the test's thread
        return status, headers, b"".join(chunks), error
    finally:
        done.set()
    return status, headers, b"".join(chunks), None


class LoopClient(TestClient):
    """``TestClient`` with one hop into the app's loop per request (see the module)."""

    __test__ = False

    def __init__(self, app: ASGIApp, raise_server_exceptions: bool = True) -> None:
        super().__init__(app, raise_server_exceptions=raise_server_exceptions)
        self.raise_server_exceptions = raise_server_exceptions
        self._transport = _OneHop(self, self._transport)
