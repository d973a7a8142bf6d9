"""Console sessions: an API key exchanged once for a server-side session that expires.

The cookie carries only a random session id (256 bits). The table keeps the SHA-256 of that
id, never the id itself, so a copy of the table lets no one sign in; it keeps the key's name
and a digest of the key's stored hash, never the key. Each request re-reads the key from its
verified events: a key revoked or issued again since sign-in ends the session at once, and a
key that lost the ``audit:read`` scope no longer reads the console.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from eventsourcing.application import AggregateNotFoundError

from ledger.eventlog.clock import format_time
from ledger.eventlog.port import EventLog
from ledger.keys.api_keys import ApiKey, Caller, Scope, granted_scopes, key_aggregate_id
from projections.session_rows import SessionRows

SESSION_SECONDS = 8 * 3600
"""How long a console session lasts after sign-in (the cookie's Max-Age and the row's
expiry); signing in again starts a new one."""


def _digest(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


@dataclass(frozen=True)
class ConsoleSession:
    """A signed-in reader: the key's principal and the session's CSRF token."""

    principal: Caller
    csrf: str
    expires_at: str


class SessionStore:
    """Sessions kept in the read-model database (``projections/session_rows.py``)."""

    def __init__(self, rows: SessionRows, keys: EventLog) -> None:
        self.rows = rows
        self.keys = keys

    def open(self, principal: Caller, now: datetime | None = None) -> tuple[str, int]:
        """Start a session for ``principal`` (just authenticated); return the cookie value and
        its lifetime in seconds. Expired sessions are swept on the way."""
        moment = now or datetime.now(UTC)
        session_id = secrets.token_urlsafe(32)
        key = self._key(principal.name)
        assert key is not None  # the caller authenticated it a moment ago
        self.rows.add(
            {
                "session_hash": _digest(session_id),
                "key_name": principal.name,
                "key_mark": _digest(key.key_hash),
                "csrf": secrets.token_urlsafe(32),
                "created_at": format_time(moment),
                "expires_at": format_time(moment + timedelta(seconds=SESSION_SECONDS)),
            },
            swept_before=format_time(moment),
        )
        return session_id, SESSION_SECONDS

    def find(self, session_id: str | None, now: datetime | None = None) -> ConsoleSession | None:
        """The live session behind a cookie value, or None (unknown, expired, or its key
        revoked, issued again, or without ``audit:read`` now)."""
        if not session_id or len(session_id) > 128:
            return None
        row = self.rows.find(_digest(session_id))
        if row is None or row["expires_at"] <= format_time(now or datetime.now(UTC)):
            return None
        key = self._key(row["key_name"])
        if (
            key is None
            or key.revoked
            or not hmac.compare_digest(_digest(key.key_hash), row["key_mark"])
        ):
            return None
        principal = Caller(name=key.name, scopes=granted_scopes(key.scopes, key.pins))
        if not principal.allows(Scope.AUDIT_READ.value):
            return None
        return ConsoleSession(principal, row["csrf"], row["expires_at"])

    def end(self, session_id: str | None) -> None:
        """Forget a session (sign out)."""
        if not session_id:
            return
        self.rows.remove(_digest(session_id))

    def _key(self, name: str) -> ApiKey | None:
        try:
            key: ApiKey = self.keys.repository.get(key_aggregate_id(name))
        except AggregateNotFoundError:
            return None
        return key
