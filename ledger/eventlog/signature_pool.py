"""Event signatures checked in chunks, on a second core when the machine has one.

An Ed25519 verification costs tens of microseconds, as much as parsing and projecting the
event it covers. A walk that must check every signature (``provledger replay``) hands them
here in chunks: a worker process verifies one chunk while the walk parses and projects the
next, and the walk asks :meth:`SignatureChecks.settle` before it acts on anything (commits a
batch, reports a result). Nothing is trusted early: ``settle`` waits for every chunk handed
in and names the earliest event whose signature failed.

Small walks never start a process: until ``parallel_after`` events have been added, chunks
are verified in the calling thread, as they are on a single-core machine. Past that, one
worker per core but one takes chunks in turn.
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

from ledger.crypto.signing import Keyring
from ledger.eventlog.envelope import SealedEvent

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
    """A child process (``python -m ledger.eventlog.signature_pool``) that checks chunks in order.

    Frames on its stdin: a 4-byte big-endian length, then ``(kid, bytes)`` pairs packed by
    :func:`pack`; the first frame holds the public keys, each later one a chunk of ``(kid,
    signature || body)``. For each chunk it writes 4 bytes: the index of the first failure,
    or 0xFFFFFFFF.
    """

    def __init__(self, keys: dict[str, bytes]) -> None:
        self._process = subprocess.Popen(
            [sys.executable, "-m", "ledger.eventlog.signature_pool"],
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
        workers: int | None = None,
    ) -> None:
        """``parallel_after=None`` never starts a worker process; 0 starts them with the first
        chunk. ``workers`` defaults to one per core but one (the caller's); a single-core
        machine gets none."""
        cores = os.cpu_count() or 1
        self._keys = {kid: record.public_key for kid, record in keyring.records.items()}
        self._chunk = chunk
        self._parallel_after = parallel_after if cores > 1 else None
        self._worker_count = max(1, cores - 1) if workers is None else workers
        self._added = 0
        self._tags: list[T] = []
        self._items: list[tuple[str, bytes]] = []
        # Chunks handed in and not yet settled, in order: tags, items, the answer when it was
        # checked here, and else the index of the worker whose answer is still to be read
        # (each worker answers its own chunks in the order it got them).
        self._pending: list[tuple[list[T], list[tuple[str, bytes]], int | None, int | None]] = []
        self._workers: list[_Worker] = []
        self._turn = 0
        self.failed: T | None = None

    def add(self, tag: T, sealed: SealedEvent) -> None:
        """Queue one event's signature; a full chunk goes to a worker (or is checked now)."""
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
        for tags, items, known, worker in self._pending:
            bad = known if worker is None else self._answer(worker, items)
            if bad is not None and self.failed is None:
                self.failed = tags[bad]
        self._pending.clear()
        return self.failed

    def close(self) -> None:
        """Stop the worker processes, if any were started."""
        workers, self._workers = self._workers, []
        for worker in workers:
            with contextlib.suppress(OSError):
                worker.close()

    def _submit(self) -> None:
        tags, items = self._tags, self._items
        self._tags, self._items = [], []
        if self._start_workers():
            index = self._turn % len(self._workers)
            self._turn += 1
            try:
                self._workers[index].send(items)
                self._pending.append((tags, items, None, index))
                return
            except OSError:
                self._give_up_workers()
        self._pending.append((tags, items, first_bad(self._keys, items), None))

    def _answer(self, worker: int, items: list[tuple[str, bytes]]) -> int | None:
        """A worker's answer for its next chunk; checked here if the workers were given up."""
        if worker < len(self._workers):
            try:
                return self._workers[worker].receive()
            except OSError:
                self._give_up_workers()
        return first_bad(self._keys, items)

    def _start_workers(self) -> bool:
        if not self._workers and (
            self._parallel_after is not None and self._added > self._parallel_after
        ):
            try:
                self._workers = [_Worker(self._keys) for _ in range(self._worker_count)]
            except OSError:
                self.close()
                self._parallel_after = None
        return bool(self._workers)

    def _give_up_workers(self) -> None:
        """After any worker failure every chunk not yet answered is checked here."""
        self._parallel_after = None
        self.close()

    def __enter__(self) -> SignatureChecks[T]:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


if __name__ == "__main__":
    _serve(sys.stdin.buffer, sys.stdout.buffer)
