"""The HTTP/1.1 protocol the server speaks, with its own refusals in problem+json too.

A request the HTTP parser cannot read (a request line or headers past the parser's limit, such
as a 100 KB URL, or bytes that are not HTTP) never reaches the application: uvicorn answers it
itself, with a plain-text 400. These subclasses of uvicorn's protocols answer it as every other
refusal is answered, RFC 9457 ``application/problem+json`` naming the rule, and close the
connection as uvicorn does. ``provledger serve`` runs them (:data:`PROTOCOL`).
"""

from __future__ import annotations

import json

from uvicorn.protocols.http.h11_impl import H11Protocol

MESSAGE = (
    "the request could not be read as HTTP/1.1: its request line or headers are malformed "
    "or longer than the server reads (about 80 KB; send long values in a JSON body)"
)
BODY = json.dumps(
    {
        "type": "https://provledger.dev/problems/malformed-request",
        "title": "Malformed request",
        "status": 400,
        "detail": MESSAGE,
        "errors": [{"field": "request", "rule": "http", "message": MESSAGE}],
    }
).encode()
HEAD = (
    b"HTTP/1.1 400 Bad Request\r\n"
    b"content-type: application/problem+json\r\n"
    b"content-length: " + str(len(BODY)).encode() + b"\r\n"
    b"connection: close\r\n\r\n"
)


class ProblemH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, refusing an unreadable request in problem+json."""

    def send_400_response(self, msg: str) -> None:
        """Answer the 400 in problem+json and close (the request was never parsed)."""
        self.transport.write(HEAD + BODY)
        self.transport.close()


try:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
except ImportError:  # pragma: no cover - httptools is a dependency; h11 is uvicorn's fallback
    PROTOCOL: type = ProblemH11Protocol
else:

    class ProblemHttpToolsProtocol(HttpToolsProtocol):
        """uvicorn's httptools protocol, refusing an unreadable request in problem+json."""

        def send_400_response(self, msg: str) -> None:
            """Answer the 400 in problem+json and close (the request was never parsed)."""
            self.transport.write(HEAD + BODY)
            self.transport.close()

    PROTOCOL = ProblemHttpToolsProtocol
"""The protocol ``provledger serve`` runs: httptools when installed, as uvicorn's default."""
