"""The compiled gate (``setup.py``, :mod:`ledger.gate._compiled`): it is what runs where it
could be built, it never runs from extensions older than their sources, and it gives the same
verdicts as the gate run from source."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import ledger.gate
from benchmarks.gate_speed import COMPUTATIONAL, FACTUAL
from benchmarks.gate_stress import cases, pydoc_sentences, wordnet_examples
from ledger.gate import judge
from ledger.gate._compiled import (
    MANIFEST,
    PURE_ENV,
    compiled_names,
    current,
    digests,
    extension,
    stale_extensions,
)

REPO = Path(__file__).resolve().parents[3]
GATE = REPO / "ledger" / "gate"
SUFFIX = sysconfig.get_config_var("EXT_SUFFIX")


def _fake_gate(directory: Path) -> Path:
    """A package directory with three compiled modules (one in a room of its own), their
    extensions and a manifest, and the modules that are never compiled."""
    (directory / "lexicon").mkdir(parents=True)
    for name in ("__init__", "model", "gate", "_words", "lexicon/__init__", "lexicon/words"):
        (directory / f"{name}.py").write_text(f"NAME = {name!r}\n")
    for name in ("gate", "_words", "lexicon/words"):
        (directory / f"{name}{SUFFIX}").write_bytes(b"\x7fELF")
    (directory / MANIFEST).write_text(json.dumps(digests(directory)))
    return directory


def test_compiles_every_module_of_every_room_but_the_entries_and_the_data_model(
    tmp_path: Path,
) -> None:
    gate = _fake_gate(tmp_path / "gate")
    assert compiled_names(gate) == ["_words", "gate", "lexicon.words"]
    assert extension(gate, "lexicon.words") == gate / "lexicon" / f"words{SUFFIX}"
    assert set(compiled_names(GATE)) >= {"gate", "alignment.matching", "anchors.numbers"}
    assert not {"__init__", "_compiled", "model", "alignment"} & set(compiled_names(GATE))


def test_an_extension_whose_module_moved_is_stale(tmp_path: Path) -> None:
    gate = _fake_gate(tmp_path / "gate")
    (gate / f"alignment{SUFFIX}").write_bytes(b"\x7fELF")
    (gate / "lexicon" / f"cues{SUFFIX}").write_bytes(b"\x7fELF")
    assert stale_extensions(gate) == [
        gate / f"alignment{SUFFIX}",
        gate / "lexicon" / f"cues{SUFFIX}",
    ]
    assert current(gate)


def test_the_built_extensions_are_current_until_a_source_changes(tmp_path: Path) -> None:
    gate = _fake_gate(tmp_path / "gate")
    assert current(gate)
    (gate / "lexicon" / "words.py").write_text("NAME = 'edited'\n")
    assert not current(gate)


@pytest.mark.parametrize(
    "attack",
    ["missing extension", "missing manifest", "manifest names a module less", "unreadable"],
)
def test_anything_but_a_complete_matching_build_is_not_current(tmp_path: Path, attack: str) -> None:
    gate = _fake_gate(tmp_path / "gate")
    manifest = gate / MANIFEST
    if attack == "missing extension":
        (gate / "lexicon" / f"words{SUFFIX}").unlink()
    elif attack == "missing manifest":
        manifest.unlink()
    elif attack == "manifest names a module less":
        manifest.write_text(json.dumps({"gate": digests(gate)["gate"]}))
    else:
        manifest.write_text("{not json")
    assert not current(gate)


def test_a_new_module_without_its_extension_is_not_current(tmp_path: Path) -> None:
    gate = _fake_gate(tmp_path / "gate")
    (gate / "lexicon" / "new.py").write_text("NAME = 'new'\n")
    assert not current(gate)


def _copy_of_ledger(target: Path) -> Path:
    """The checkout's ``ledger`` package with whatever the build put in it."""
    shutil.copytree(
        REPO / "ledger", target / "ledger", ignore=shutil.ignore_patterns("__pycache__")
    )
    return target


def _import_gate(root: Path, **env: str) -> dict[str, object]:
    code = (
        "import json, ledger.gate, ledger.gate.alignment.matching as a;"
        "print(json.dumps({'compiled': ledger.gate.COMPILED, 'file': a.__file__}))"
    )
    done = subprocess.run(
        [sys.executable, "-W", "always", "-c", code],
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root), **env},
        capture_output=True,
        text=True,
        check=True,
    )
    return {**json.loads(done.stdout), "stderr": done.stderr}


built = pytest.mark.skipif(
    not current(GATE),
    reason="the gate of this checkout is not compiled from these sources (scripts/check "
    "compiles it)",
)


@built
def test_an_edited_source_runs_from_source_with_a_warning(tmp_path: Path) -> None:
    root = _copy_of_ledger(tmp_path)
    assert _import_gate(root)["compiled"] is True
    words = root / "ledger" / "gate" / "lexicon" / "words.py"
    words.write_text(words.read_text() + "\n# edited after the build\n")
    seen = _import_gate(root)
    assert seen["compiled"] is False
    assert str(seen["file"]).endswith("matching.py")
    assert "built from other sources" in str(seen["stderr"])


@built
def test_the_pure_switch_runs_from_source_without_a_warning(tmp_path: Path) -> None:
    seen = _import_gate(_copy_of_ledger(tmp_path), **{PURE_ENV: "1"})
    assert seen["compiled"] is False
    assert str(seen["file"]).endswith("matching.py")
    assert "Warning" not in str(seen["stderr"])


def test_the_installed_gate_is_compiled_where_a_c_compiler_is() -> None:
    """A failed build must not pass unnoticed: the extensions are optional at install time."""
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if os.environ.get(PURE_ENV) == "1" or shutil.which(compiler) is None:
        pytest.skip("no C compiler, or the source gate was asked for")
    assert ledger.gate.COMPILED, "scripts/check compiles the gate (setup.py); it did not"


def _claims() -> list[tuple[object, object]]:
    """Claims and spans both gates judge: the speed benchmark's, and each verbatim quote and
    edit of a slice of WordNet's examples and of the language reference."""
    sentences = [t.strip() for t in wordnet_examples() if len(t.split()) >= 5][5_000:5_200]
    sentences += [t.strip() for t in pydoc_sentences() if len(t.split()) >= 5][500:600]
    return [FACTUAL, COMPUTATIONAL, *((c.claim, c.spans) for c in cases(sentences))]


def verdicts() -> list[dict[str, object]]:
    """The verdict of every claim of :func:`_claims`, as JSON."""
    return [judge(claim, spans).to_json() for claim, spans in _claims()]  # type: ignore[arg-type]


def test_the_compiled_and_the_source_gate_give_the_same_verdicts() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import json, sys, ledger.gate;"
            "assert not ledger.gate.COMPILED;"
            "from tests.unit.gate.test_compiled import verdicts;"
            "json.dump(verdicts(), sys.stdout)",
        ],
        cwd=REPO,
        env={**os.environ, PURE_ENV: "1"},
        capture_output=True,
        text=True,
        check=True,
    )
    here = verdicts()
    assert len(here) > 500
    assert json.loads(done.stdout) == here
