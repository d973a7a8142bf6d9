"""Build step: compile the commit gate's modules to C extensions with mypyc.

Everything else about the package is in pyproject.toml. The gate is the one part of the service
whose speed has a target (docs/gate.md, "The compiled gate"); mypyc compiles its type-annotated
modules as they are, and ``ledger/gate/_compiled.py`` makes sure that a compiled module is only
ever used while its source is the one it was compiled from (the build records their digests in
``compiled.json``). The extensions are optional: where they cannot be built (no C compiler), or
with ``PROVLEDGER_GATE_PURE=1`` set at install time, the gate runs from its sources, with the
same judgements.
"""

from __future__ import annotations

import json
import os
import runpy
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext

GATE = Path("ledger") / "gate"
_compiled = runpy.run_path(str(GATE / "_compiled.py"))
_DIGESTS = _compiled["digests"](GATE)
"""The digests of the sources as the build reads them, before it compiles them: a source
edited while the build runs then fails the manifest, and the gate runs from source."""


class BuildGate(build_ext):
    """``build_ext`` that also writes the digests of the sources it compiled, once every
    extension was built, and removes the extensions of modules that no longer have a source
    (a module moved to another room of the gate)."""

    def run(self) -> None:
        super().run()
        names = _compiled["compiled_names"](GATE)
        first = names[0]
        # The extension of ``alignment.matching`` lies one folder below the gate's.
        target = Path(self.get_ext_fullpath(f"ledger.gate.{first}")).parents[first.count(".")]
        for stale in _compiled["stale_extensions"](target):
            stale.unlink()
        if all(_compiled["extension"](target, name) for name in names):
            manifest = target / _compiled["MANIFEST"]
            manifest.write_text(json.dumps(_DIGESTS, indent=1) + "\n")


def _extensions() -> list[object]:
    if os.environ.get(_compiled["PURE_ENV"]) == "1":
        return []
    from mypyc.build import mypycify

    paths = [str(_compiled["source"](GATE, name)) for name in _compiled["compiled_names"](GATE)]
    extensions = mypycify(
        ["--config-file", "", "--strict", "--ignore-missing-imports", *paths],
        opt_level="3",
        group_name="ledger.gate",
    )
    for extension in extensions:
        extension.optional = True
    return extensions


setup(ext_modules=_extensions(), cmdclass={"build_ext": BuildGate})
