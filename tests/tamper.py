"""Direct database edits that simulate an attacker with write access to the store."""

from __future__ import annotations

import json
import sqlite3
from typing import Any
from uuid import UUID

import psycopg
from psycopg import sql

from ledger.crypto.canonical import canonical_json
from ledger.crypto.signing import SigningKey
from ledger.eventlog.envelope import SealedEvent, seal
from ledger.runtime import LedgerRuntime
from projections.database import readmodel_path


class Tamperer:
    """Reads and rewrites stored event rows behind the ledger's back."""

    def __init__(self, runtime: LedgerRuntime) -> None:
        self.database = runtime.database

    def _run(
        self, query: str, params: tuple[object, ...], read_model: bool = False
    ) -> list[tuple[object, ...]]:
        if self.database.kind == "sqlite":
            path = readmodel_path(self.database) if read_model else self.database.sqlite_path
            with sqlite3.connect(str(path)) as conn:
                rows = conn.execute(query.replace("%s", "?"), params).fetchall()
                conn.commit()
                return rows
        with psycopg.connect(
            host=self.database.host,
            port=self.database.port,
            dbname=self.database.dbname,
            user=self.database.user,
            autocommit=True,
        ) as conn:
            conn.execute(
                sql.SQL("SET search_path TO {}").format(sql.Identifier(self.database.schema))
            )
            cursor = conn.execute(query.encode(), params)  # type: ignore[call-overload]
            return list(cursor.fetchall()) if cursor.description else []

    @property
    def _table(self) -> str:
        return "stored_events" if self.database.kind == "sqlite" else "provledger_events"

    @property
    def _id(self) -> str:
        return "rowid" if self.database.kind == "sqlite" else "notification_id"

    def state(self, notification_id: int) -> bytes:
        rows = self._run(
            f"SELECT state FROM {self._table} WHERE {self._id} = %s", (notification_id,)
        )
        return bytes(rows[0][0])  # type: ignore[arg-type]

    def set_state(self, notification_id: int, state: bytes) -> None:
        self._run(
            f"UPDATE {self._table} SET state = %s WHERE {self._id} = %s",
            (state, notification_id),
        )

    def delete(self, notification_id: int) -> None:
        self._run(f"DELETE FROM {self._table} WHERE {self._id} = %s", (notification_id,))

    def insert(self, originator_id: UUID, version: int, topic: str, state: bytes) -> None:
        """Add an event row the ledger never wrote."""
        stored_id = originator_id.hex if self.database.kind == "sqlite" else str(originator_id)
        self._run(
            f"INSERT INTO {self._table} (originator_id, originator_version, topic, state) "
            "VALUES (%s, %s, %s, %s)",
            (stored_id, version, topic, state),
        )

    def forge(
        self,
        originator_id: UUID,
        version: int,
        topic: str,
        payload: dict[str, Any],
        kid: str,
        prev: bytes | None = None,
    ) -> None:
        """Insert an event signed by a stranger's key but naming key id ``kid`` (the ledger's,
        so that only the signature is wrong), linked to ``prev``."""
        forged = seal(
            SigningKey.generate(),
            originator_id=str(originator_id),
            originator_version=version,
            topic=topic,
            recorded_at="2030-01-01T00:00:00.000000Z",
            actor="cli:admin",
            payload=payload,
            prev=prev,
        )
        state = SealedEvent(forged.body, forged.body_bytes, kid, forged.signature).to_state()
        self.insert(originator_id, version, topic, state)

    def read_model(self, query: str, *params: object) -> list[tuple[object, ...]]:
        """Run ``query`` against the read-model tables (``%s`` placeholders)."""
        return self._run(query, params, read_model=True)

    def edit_body(self, notification_id: int, **fields: object) -> None:
        """Change fields of an event's body under its old signature: a well-formed state whose
        signature no longer matches and whose event hash has changed."""
        document = json.loads(self.state(notification_id))
        document["body"].update(fields)
        self.set_state(notification_id, canonical_json(document))

    def forge_signature(self, notification_id: int, donor: int = 1) -> None:
        """Give an event the signature of event ``donor``: a well-formed state, under the
        ledger's own key id, whose signature does not match its body."""
        document = json.loads(self.state(notification_id))
        document["signature"]["sig"] = json.loads(self.state(donor))["signature"]["sig"]
        self.set_state(notification_id, canonical_json(document))


def two_key_history(runtime: LedgerRuntime, events: int, actor: str = "test:suite") -> None:
    """The first ``events`` (at most 6) of: alpha v1, beta v1, alpha v2, beta v2, alpha v3,
    beta v3 (two API keys issued, revoked and reissued, interleaved)."""
    keys = runtime.api_keys
    steps = [
        lambda: keys.issue("alpha", ["read"], actor),
        lambda: keys.issue("beta", ["ingest"], actor),
        lambda: keys.revoke("alpha", "one", actor),
        lambda: keys.revoke("beta", "two", actor),
        lambda: keys.issue("alpha", ["audit:read"], actor),
        lambda: keys.issue("beta", ["read"], actor),
    ]
    for step in steps[:events]:
        step()
