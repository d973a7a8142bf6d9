"""Every shell and Python example of README.md and docs/ runs as written, in the order a reader
meets them, against one fresh service (docs/examples.md says how, and what is not run).

A page's blocks run in one shell, top to bottom, as a reader pastes them: shell variables set by
one block are there for the next; each page starts from the environment of the setup blocks.
The service logs every request with its status; a request marks where each block starts, so
every answer is checked against the block that asked: no 5xx anywhere, no 4xx outside a block
marked ``refusal``, and a ``refusal`` block must show a refusal."""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.e2e.doc_blocks import (
    Block,
    as_served,
    blocks,
    code,
    convention_errors,
    names,
    reading_order,
)
from tests.e2e.live_service import VENV_BIN, running_service, service_env

PYTHON_END = "__PROVLEDGER_DOCS_PYTHON__"
MARK = "docs-block-"


@pytest.fixture(scope="module")
def pages() -> dict[Path, list[Block]]:
    return {page: blocks(page) for page in reading_order()}


def _runnable(pages: dict[Path, list[Block]]) -> list[tuple[Path, list[Block]]]:
    return [
        (page, [b for b in found if b.runs and "setup" not in b.words])
        for page, found in pages.items()
    ]


def _setup(pages: dict[Path, list[Block]]) -> list[Block]:
    return [b for found in pages.values() for b in found if b.runs and "setup" in b.words]


def test_every_sh_and_python_block_runs_or_is_marked_as_not_run(
    pages: dict[Path, list[Block]],
) -> None:
    errors = [error for found in pages.values() for b in found for error in convention_errors(b)]

    assert errors == []
    assert len(_setup(pages)) == 1, "one setup block (docs/examples.md) sets the environment"


def test_the_reading_order_is_the_readme_then_its_links_then_the_rest_by_name() -> None:
    order = [page.name for page in reading_order()]

    assert order[0] == "README.md"
    assert order.index("examples.md") < order.index("registry.md")  # README links it early
    unlinked = ["gate-history.md", "observability.md"]
    assert [name for name in order if name in unlinked] == sorted(unlinked)


def test_no_page_uses_a_name_another_page_writes(pages: dict[Path, list[Block]]) -> None:
    owners: dict[tuple[str, str], set[str]] = defaultdict(set)
    for page, found in _runnable(pages):
        for block in found:
            for name in names(block):
                owners[name].add(page.name)

    shared = {f"{kind} {value!r}": sorted(p) for (kind, value), p in owners.items() if len(p) > 1}
    assert shared == {}, "each page writes and reads its own names"


def _exported(text: str) -> set[str]:
    return set(re.findall(r"^export ([A-Za-z_][A-Za-z0-9_]*)=", text, re.MULTILINE))


def _assigned(text: str) -> set[str]:
    assigned = set(re.findall(r"(?:^|[\s;(])(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=", text))
    return assigned | set(re.findall(r"\bfor ([A-Za-z_][A-Za-z0-9_]*) in\b", text))


def _read(block: Block) -> set[str]:
    if block.language == "python":
        pattern = r"os\.(?:environ\[|environ\.get\(|getenv\()\s*[\"']([A-Za-z_][A-Za-z0-9_]*)"
        return set(re.findall(pattern, code(block)))
    return set(re.findall(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)", code(block)))


def test_every_variable_an_example_reads_is_set_by_the_setup_or_its_page(
    pages: dict[Path, list[Block]],
) -> None:
    documented = {name for b in _setup(pages) for name in _exported(b.text)}
    unset = []
    for _page, found in _runnable(pages):
        known = set(documented)
        for block in found:
            missing = _read(block) - known - _assigned(block.text)
            unset += [f"{block.where}: ${name}" for name in sorted(missing)]
            known |= _assigned(block.text) if block.language == "sh" else set()

    assert unset == [], "read but set neither in docs/examples.md's setup nor before on the page"


@dataclass
class _Run:
    """What the examples did: each block's answers (method, path, status), the refusal
    blocks that refused, the pages that stopped and their output."""

    answers: dict[str, list[tuple[str, str, int]]] = field(default_factory=dict)
    refused: dict[str, bool] = field(default_factory=dict)
    stopped: list[str] = field(default_factory=list)


def _script(found: list[Block], first: int, address: str) -> tuple[str, dict[str, Block]]:
    lines = [
        "set -uo pipefail",
        '__mark() { curl -s -o /dev/null -H "X-Request-ID: $1" "$__DOCS_URL/healthz"; }',
    ]
    marks = {}
    for number, block in enumerate(found, first):
        mark = f"{MARK}{number}"
        marks[mark] = block
        lines.append(f"printf '\\n@@ %s\\n' {block.where} | tee /dev/stderr; __mark {mark}")
        refusal = "refusal" in block.words
        lines.append("set +e; __refused=0; trap '__refused=1' ERR" if refusal else "set -e")
        text = as_served(block.text, address)
        if block.language == "python":
            assert PYTHON_END not in text
            lines.append(f"\"$__DOCS_PYTHON\" - <<'{PYTHON_END}'\n{text}{PYTHON_END}")
        else:
            lines.append(text)
        if refusal:
            lines.append(f'trap - ERR; printf "\\n@@refused {mark} %s\\n" "$__refused"')
        lines.append("set +e")
    return "\n".join(lines) + "\n", marks


def _environment(
    setup: list[Block], reader: Path, address: str, base: dict[str, str]
) -> dict[str, str]:
    script = "set -euo pipefail\n" + "".join(as_served(b.text, address) for b in setup)
    done = subprocess.run(
        ["bash", "-c", script + 'env -0 > "$__DOCS_ENV"'],
        cwd=reader,
        env={**base, "__DOCS_ENV": str(reader.parent / "setup.env")},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    pairs = (reader.parent / "setup.env").read_text().split("\0")
    return dict(pair.split("=", 1) for pair in pairs if "=" in pair)


def _answers(log: Path, marks: dict[str, Block]) -> dict[str, list[tuple[str, str, int]]]:
    answers: dict[str, list[tuple[str, str, int]]] = {}
    current: str | None = None
    for line in log.read_text("utf-8", errors="replace").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if entry.get("event") != "request":
            continue
        if entry.get("request_id") in marks:
            current = entry["request_id"]
            answers[current] = []
        elif current is not None:
            answers[current].append((entry["method"], entry["path"], int(entry["status"])))
    return answers


def _reader(tmp_path: Path) -> Path:
    """The reader's working directory: the checkout's .venv, some documents of their own."""
    reader = tmp_path / "reader"
    documents = reader / "my-documents"
    (documents / "notes").mkdir(parents=True)
    (reader / ".venv").symlink_to(VENV_BIN.parent)
    (documents / "notes" / "costs.md").write_text("# Costs\n\nCosts fell 3% in 2019.\n")
    (documents / "letter.txt").write_text("We thank our customers.\n")
    return reader


def test_every_example_runs_as_written_against_one_fresh_service(
    pages: dict[Path, list[Block]], tmp_path: Path
) -> None:
    reader = _reader(tmp_path)
    log = tmp_path / "service.log"
    run = _Run()
    marks: dict[str, Block] = {}
    base = service_env(reader / "elsewhere")  # the setup block names the data dir itself
    base.pop("PROVLEDGER_DATA_DIR")
    base["PATH"] = f"{VENV_BIN}{os.pathsep}{base['PATH']}"  # .venv activated, as docs say

    with running_service(reader / "provledger-data", log=log) as url:
        address = url.removeprefix("http://")
        env = _environment(_setup(pages), reader, address, base)
        env |= {"__DOCS_URL": url, "__DOCS_PYTHON": str(VENV_BIN / "python")}
        for page, found in _runnable(pages):
            if not found:
                continue
            script, page_marks = _script(found, len(marks), address)
            marks |= page_marks
            done = subprocess.run(
                ["bash", "-c", script],
                cwd=reader,
                env=env,
                capture_output=True,
                text=True,
                timeout=600,
                check=False,
            )
            for mark, flag in re.findall(rf"^@@refused ({MARK}\d+) (\d)$", done.stdout, re.M):
                run.refused[mark] = flag == "1"
            if done.returncode != 0:
                last = re.findall(r"^@@ (.+)$", done.stdout, re.MULTILINE)
                where = last[-1] if last else page.name
                run.stopped.append(f"{where}\n{done.stdout[-1500:]}\n{done.stderr[-2500:]}")

    run.answers = _answers(log, marks)
    assert run.stopped == [], "\n\n".join(run.stopped)
    problems = []
    for mark, block in marks.items():
        answered = run.answers.get(mark)
        if answered is None:
            problems.append(f"{block.where}: never ran")
            continue
        failed = [f"{m} {p} -> {s}" for m, p, s in answered if s >= 500]
        refused = [f"{m} {p} -> {s}" for m, p, s in answered if 400 <= s < 500]
        if "refusal" in block.words:
            if not refused and not run.refused.get(mark):
                problems.append(f"{block.where}: marked refusal, but nothing was refused")
        elif refused:
            failed += refused
        problems += [f"{block.where}: {answer}" for answer in failed]
    assert problems == []
