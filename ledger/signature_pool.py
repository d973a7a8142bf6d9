"""Event signatures checked in chunks, on a second core when the machine has one.

An Ed25519 verification costs tens of microseconds, as much as parsing and projecting the
event it covers. A walk that must check every signature (``provledger replay``) hands them
here in chunks: a worker process verifies one chunk while the walk parses and projects the
next, and the walk asks :meth:`SignatureChecks.settle` before it acts on anything (commits a
batch, reports a result). Nothing is trusted early: ``settle`` waits for every chunk handed
in and names the earliest event whose signature failed.

Small walks never start a process: until ``parallel_after`` events have been added, chunks
are verified in the calling thread, as they are on a single-core machine.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import subprocess
import sys
from typing import IO, Generic, TypeVar

from nacl.bindings import crypto_sign_open
from nacl.exceptions import BadSignatureError

from ledger.envelope import SealedEvent
from ledger.signing import Keyring

T = TypeVar("T")

CHUNK = 200
PARALLEL_AFTER = 4000
PIPE_BYTES = 1 << 20


def first_bad(keys: dict[str, bytes], items: list[tuple[str, bytes]]) -> int | None:
    """Index of the first ``(kid, signature || body)`` that does not verify, else None."""
    for index, (kid, signed) in enumerate(items):
        public_key = keys.get(kid)
        if public_key is None:
            return index
        try:
            crypto_sign_open(signed, public_key)
        except (BadSignatureError, ValueError):
            return index
    return None


_NONE = 0xFFFFFFFF


def pack(pairs: list[tuple[str, bytes]]) -> bytes:
    """``(kid, data)`` pairs as bytes: per pair, a 1-byte key id length, the ASCII key id, a
    4-byte big-endian data length, the data."""
    parts: list[bytes] = []
    for kid, data in pairs:
        name = kid.encode("ascii")
        parts.append(len(name).to_bytes(1, "big") + name + len(data).to_bytes(4, "big") + data)
    return b"".join(parts)


def unpack(frame: bytes) -> list[tuple[str, bytes]]:
    """The pairs :func:`pack` wrote."""
    pairs: list[tuple[str, bytes]] = []
    at = 0
    while at < len(frame):
        end = at + 1 + frame[at]
        kid = frame[at + 1 : end].decode("ascii")
        size = int.from_bytes(frame[end : end + 4], "big")
        pairs.append((kid, frame[end + 4 : end + 4 + size]))
        at = end + 4 + size
    return pairs


class _Worker:
    """A child process (``python -m ledger.signature_pool``) that checks chunks in order.

    Frames on its stdin: a 4-byte big-endian length, then ``(kid, bytes)`` pairs packed by
    :func:`pack`; the first frame holds the public keys, each later one a chunk of ``(kid,
    signature || body)``. For each chunk it writes 4 bytes: the index of the first failure,
    or 0xFFFFFFFF.
    """

    def __init__(self, keys: dict[str, bytes]) -> None:
        self._process = subprocess.Popen(
            [sys.executable, "-m", "ledger.signature_pool"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        if self._process.stdin is not None and hasattr(fcntl, "F_SETPIPE_SZ"):
            # Room for several chunks in flight, so handing one in rarely waits for the worker.
            with contextlib.suppress(OSError):
                fcntl.fcntl(self._process.stdin, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
        self.send(list(keys.items()))

    def send(self, pairs: list[tuple[str, bytes]]) -> None:
        data = pack(pairs)
        stdin = self._process.stdin
        assert stdin is not None
        stdin.write(len(data).to_bytes(4, "big") + data)
        stdin.flush()

    def receive(self) -> int | None:
        stdout = self._process.stdout
        assert stdout is not None
        answer = stdout.read(4)
        if len(answer) != 4:
            raise BrokenPipeError("signature worker stopped")
        index = int.from_bytes(answer, "big")
        return None if index == _NONE else index

    def close(self) -> None:
        if self._process.stdin is not None:
            self._process.stdin.close()
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        if self._process.stdout is not None:
            self._process.stdout.close()


def _serve(stdin: IO[bytes], stdout: IO[bytes]) -> None:
    """The worker's loop: read the key map, then answer one 4-byte result per chunk."""
    keys: dict[str, bytes] | None = None
    while True:
        header = stdin.read(4)
        if len(header) != 4:
            return
        frame = unpack(stdin.read(int.from_bytes(header, "big")))
        if keys is None:
            keys = dict(frame)
            continue
        bad = first_bad(keys, frame)
        stdout.write((_NONE if bad is None else bad).to_bytes(4, "big"))
        stdout.flush()


class SignatureChecks(Generic[T]):
    """Collects ``(tag, sealed event)`` pairs and verifies their signatures in chunks."""

    def __init__(
        self,
        keyring: Keyring,
        chunk: int = CHUNK,
        parallel_after: int | None = PARALLEL_AFTER,
    ) -> None:
        """``parallel_after=None`` never starts a worker process; 0 starts one with the first
        chunk (on a machine with more than one core)."""
        self._keys = {kid: record.public_key for kid, record in keyring.records.items()}
        self._chunk = chunk
        self._parallel_after = parallel_after if (os.cpu_count() or 1) > 1 else None
        self._added = 0
        self._tags: list[T] = []
        self._items: list[tuple[str, bytes]] = []
        # Chunks handed in and not yet settled: tags, items, and the answer if already known
        # (checked here) or None (the worker's answer is still to be read, in order).
        self._pending: list[tuple[list[T], list[tuple[str, bytes]], int | None, bool]] = []
        self._worker: _Worker | None = None
        self.failed: T | None = None

    def add(self, tag: T, sealed: SealedEvent) -> None:
        """Queue one event's signature; a full chunk goes to the worker (or is checked now)."""
        self._tags.append(tag)
        self._items.append((sealed.kid, sealed.signature + sealed.body_bytes))
        self._added += 1
        if len(self._items) >= self._chunk:
            self._submit()

    def settle(self) -> T | None:
        """Wait for every signature added so far; the tag of the earliest that failed, or None.

        Once a failure is found it is kept: later calls return the same tag.
        """
        if self._items:
            self._submit()
        for tags, items, known, in_worker in self._pending:
            bad = self._answer(items) if in_worker else known
            if bad is not None and self.failed is None:
                self.failed = tags[bad]
        self._pending.clear()
        return self.failed

    def close(self) -> None:
        """Stop the worker process, if one was started."""
        if self._worker is not None:
            self._worker.close()
            self._worker = None

    def _submit(self) -> None:
        tags, items = self._tags, self._items
        self._tags, self._items = [], []
        worker = self._start_worker()
        if worker is not None:
            try:
                worker.send(items)
                self._pending.append((tags, items, None, True))
                return
            except OSError:
                self._give_up_worker()
        self._pending.append((tags, items, first_bad(self._keys, items), False))

    def _answer(self, items: list[tuple[str, bytes]]) -> int | None:
        """The worker's answer for the next chunk in order; checked here if it has died."""
        if self._worker is not None:
            try:
                return self._worker.receive()
            except OSError:
                self._give_up_worker()
        return first_bad(self._keys, items)

    def _start_worker(self) -> _Worker | None:
        if self._worker is None and (
            self._parallel_after is not None and self._added > self._parallel_after
        ):
            try:
                self._worker = _Worker(self._keys)
            except OSError:
                self._parallel_after = None
        return self._worker

    def _give_up_worker(self) -> None:
        """After a worker failure every later chunk is checked here."""
        worker, self._worker, self._parallel_after = self._worker, None, None
        if worker is not None:
            with contextlib.suppress(OSError):
                worker.close()

    def __enter__(self) -> SignatureChecks[T]:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


if __name__ == "__main__":
    _serve(sys.stdin.buffer, sys.stdout.buffer)
