"""A witness's data directory: its own key, the logs it knows, and its durable state.

Layout::

    <data dir>/witness.pem       the witness's Ed25519 private key (PKCS#8, mode 0600)
    <data dir>/witness.json      {"name": ..., "logs": [<log verifier key>, ...]}
    <data dir>/state/<h>.json    per log: the newest cosigned checkpoint (h = SHA-256(origin))

State files are replaced atomically (write a temporary file, fsync it, rename it over the old
one, fsync the directory), so after a crash a witness finds either the old state or the new
one, never a torn file, and it never answers before the new state is on disk.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
import tempfile
from pathlib import Path

from ledger.audit.witness import Witness, WitnessedState
from ledger.crypto.checkpoint import parse_vkey
from ledger.crypto.cosignature import WitnessKey
from ledger.crypto.signing import SigningKey, write_private
from ledger.errors import CheckpointError, ConfigurationError

DEFAULT_NAME = "provledger.local/witness"


class WitnessDataDir:
    """Creates and opens a witness's data directory."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @property
    def key_file(self) -> Path:
        """The witness's private key."""
        return self.path / "witness.pem"

    @property
    def config_file(self) -> Path:
        """The witness's name and the logs it knows."""
        return self.path / "witness.json"

    def init(self, name: str, logs: list[str]) -> WitnessKey:
        """Create a new witness key and configuration; refuse to overwrite an existing one."""
        if self.key_file.exists():
            raise ConfigurationError(
                f"{self.key_file} exists: a witness key is never replaced (its state would "
                "no longer be vouched for); use another --data-dir"
            )
        for vkey in logs:
            _parse_log(vkey)
        signing_key = SigningKey.generate()
        key = WitnessKey(name, signing_key.public_key)  # checks the name
        _ = key.key_hash
        write_private(self.key_file, signing_key.to_pem())
        _write_durably(self.config_file, json.dumps({"name": name, "logs": logs}, indent=2))
        return key

    def add_log(self, vkey: str) -> None:
        """Trust one more log key (a new log, or a rotated key of a known one)."""
        name, logs = self._config()
        _parse_log(vkey)
        if vkey not in logs:
            logs.append(vkey)
        _write_durably(self.config_file, json.dumps({"name": name, "logs": logs}, indent=2))

    def _config(self) -> tuple[str, list[str]]:
        try:
            config = json.loads(self.config_file.read_text("utf-8"))
            return str(config["name"]), [str(v) for v in config["logs"]]
        except FileNotFoundError:
            raise ConfigurationError(
                f"{self.config_file} is missing: run `provledger witness init` first"
            ) from None
        except (ValueError, KeyError, TypeError) as exc:
            raise ConfigurationError(f"{self.config_file} is not a witness config: {exc}") from exc

    def open(self) -> Witness:
        """The witness this directory holds, ready to serve."""
        name, vkeys = self._config()
        try:
            signing_key = SigningKey.from_pem(self.key_file.read_bytes())
        except FileNotFoundError:
            raise ConfigurationError(f"{self.key_file} is missing") from None
        logs: dict[str, list[bytes]] = {}
        for vkey in vkeys:
            origin, public_key = _parse_log(vkey)
            logs.setdefault(origin, []).append(public_key)
        if not logs:
            raise ConfigurationError(
                f"{self.config_file} names no log: add one with `provledger witness add-log`"
            )
        return Witness(name, signing_key, logs, FileStateStore(self.path / "state"))

    def public_key(self) -> WitnessKey:
        """The witness's public identity."""
        name, _ = self._config()
        return WitnessKey(name, SigningKey.from_pem(self.key_file.read_bytes()).public_key)


def _parse_log(vkey: str) -> tuple[str, bytes]:
    try:
        return parse_vkey(vkey)
    except CheckpointError as exc:
        raise ConfigurationError(f"log key: {exc}") from exc


class FileStateStore:
    """One JSON file per log, replaced atomically and fsynced."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def _file(self, origin: str) -> Path:
        return self.directory / (hashlib.sha256(origin.encode()).hexdigest() + ".json")

    def load(self, origin: str) -> WitnessedState | None:
        """The stored state of ``origin``; a damaged file stops the witness (never resets it)."""
        path = self._file(origin)
        try:
            data = json.loads(path.read_text("utf-8"))
            state = WitnessedState(
                origin=str(data["origin"]),
                size=int(data["size"]),
                root=base64.b64decode(data["root"], validate=True),
                note=str(data["note"]),
                cosignature=str(data["cosignature"]),
            )
        except FileNotFoundError:
            return None
        except (ValueError, KeyError, TypeError, binascii.Error) as exc:
            raise ConfigurationError(f"witness state {path} is damaged: {exc}") from exc
        if state.origin != origin:
            raise ConfigurationError(f"witness state {path} names {state.origin!r}, not {origin!r}")
        return state

    def save(self, state: WitnessedState) -> None:
        """Replace the state of ``state.origin`` durably."""
        document = {
            "origin": state.origin,
            "size": state.size,
            "root": base64.b64encode(state.root).decode("ascii"),
            "note": state.note,
            "cosignature": state.cosignature,
        }
        _write_durably(self._file(state.origin), json.dumps(document, indent=2))


def _write_durably(path: Path, text: str) -> None:
    """Atomic replace with fsync of the file and of its directory."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)
