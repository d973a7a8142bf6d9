"""Whether the gate runs as compiled code, and never compiled code older than its source.

Installing the project compiles the gate's modules to C extensions with mypyc (``setup.py``;
docs/gate.md, "The compiled gate"): the same judgements, about twice as fast. The build also
writes ``compiled.json`` beside them, the SHA-256 of each module's source as it was compiled.
Python imports an extension in preference to its source, so after an edit to a module (or a
checkout that changed one) the old judgement would keep running: :func:`select` runs before any
of the gate's modules is imported and, unless every compiled module's source still has the
recorded digest, makes Python import all of them from source instead. A partial mix is never
used: compiled modules call each other directly, not through their Python names.

``PROVLEDGER_GATE_PURE=1`` asks for the source modules even when the compiled ones are current
(to compare the two, or to debug). This module runs before the choice is made, so it is never
compiled itself, and it uses the standard library only (``setup.py`` reads it too).
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import warnings
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType

PACKAGE = "ledger.gate"
MANIFEST = "compiled.json"
PURE_ENV = "PROVLEDGER_GATE_PURE"
SOURCE_ONLY = frozenset({"__init__", "_compiled", "model", "reasons", "warm"})
"""Modules never compiled: this one, the package's entry, the data model the API and the
benchmarks build and copy (``dataclasses.replace``), the reason table and the warm-up; nor
the ``__init__`` of a room (a docstring)."""


def compiled_names(directory: Path) -> list[str]:
    """The modules of the gate package at ``directory`` that the build compiles, sorted, by
    their dotted names below it (``gate``, ``alignment.matching``)."""
    names = []
    for path in directory.rglob("*.py"):
        parts = path.relative_to(directory).with_suffix("").parts
        if parts[-1] == "__init__" or (len(parts) == 1 and parts[0] in SOURCE_ONLY):
            continue
        names.append(".".join(parts))
    return sorted(names)


def source(directory: Path, name: str) -> Path:
    """The source file of the module ``name`` (a dotted name below ``directory``)."""
    return directory.joinpath(*name.split(".")).with_suffix(".py")


def digests(directory: Path) -> dict[str, str]:
    """The SHA-256 of each compiled module's source, by module name (the manifest's body)."""
    return {
        name: hashlib.sha256(source(directory, name).read_bytes()).hexdigest()
        for name in compiled_names(directory)
    }


def extension(directory: Path, name: str) -> Path | None:
    """The compiled extension of module ``name`` (a dotted name below ``directory``), if one
    was built."""
    parts = name.split(".")
    folder = directory.joinpath(*parts[:-1])
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        candidate = folder / f"{parts[-1]}{suffix}"
        if candidate.is_file():
            return candidate
    return None


def stale_extensions(directory: Path) -> list[Path]:
    """Extensions below ``directory`` whose module has no source any more (a module moved or
    removed since the last build): Python would import one in place of nothing, and a
    package's build leaves them behind."""
    compiled = set(compiled_names(directory))
    out = []
    for path in sorted(directory.rglob("*")):
        suffixes = [s for s in importlib.machinery.EXTENSION_SUFFIXES if path.name.endswith(s)]
        if suffixes:
            # The longest suffix is the extension's (``.cpython-311-x86_64-linux-gnu.so``
            # ends with ``.so`` too).
            name = ".".join(path.relative_to(directory).parts)[: -max(map(len, suffixes))]
            if name not in compiled:
                out.append(path)
    return out


def current(directory: Path) -> bool:
    """Whether every compiled module has its extension and the manifest's digest of its source
    is the digest of the source there now."""
    try:
        recorded = json.loads((directory / MANIFEST).read_text())
    except (OSError, ValueError):
        return False
    names = compiled_names(directory)
    return recorded == digests(directory) and all(extension(directory, n) for n in names)


class _SourceFinder(importlib.abc.MetaPathFinder):
    """Finds the listed modules of the package as source files, ahead of their extensions."""

    def __init__(self, directory: Path, names: Sequence[str]) -> None:
        self.directory = directory
        self.names = frozenset(f"{PACKAGE}.{name}" for name in names)

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> ModuleSpec | None:
        if fullname not in self.names:
            return None
        name = fullname.removeprefix(f"{PACKAGE}.")
        return importlib.util.spec_from_file_location(
            name=fullname, location=source(self.directory, name)
        )


def select(directory: Path) -> bool:
    """Whether the gate at ``directory`` runs compiled; when it cannot or must not, make
    Python import every one of its compiled modules from source (with a warning when the
    extensions are there but older than their sources)."""
    names = compiled_names(directory)
    built = [n for n in names if extension(directory, n)]
    if not built:
        return False
    if os.environ.get(PURE_ENV) != "1" and current(directory):
        return True
    if os.environ.get(PURE_ENV) != "1":
        warnings.warn(
            "the compiled gate modules were built from other sources than these; the gate "
            "runs from source (reinstall the project to compile it again: scripts/check "
            "does)",
            RuntimeWarning,
            stacklevel=2,
        )
    if not any(isinstance(f, _SourceFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _SourceFinder(directory, names))
    return False
