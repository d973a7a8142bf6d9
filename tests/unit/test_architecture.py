"""The map in docs/architecture.md is the code's: its drawn arrows are the imports between the
rooms, no arrow runs up, no module imports another in a circle at module level, and no module
outside the gate, in the packages or in ``benchmarks/``, is over 400 lines.

Imports are read from the source (``ast``), as Python runs them when a module is imported: at
the module's top level, in its ``if``/``try`` blocks, not inside a function and not under
``TYPE_CHECKING``.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("ledger", "projections", "processes", "api", "provledger")
SIZED = (*PACKAGES, "benchmarks")
"""The folders whose modules are held to :data:`MAX_LINES`: the packages, whose rooms the map
draws, and the benchmarks, which are in no room."""
MAX_LINES = 400
UNBOUNDED = ("ledger/gate/",)
"""The gate's rooms are sized by the gate's own rules (docs/gate.md)."""

Graph = dict[str, set[str]]


def modules(root: Path, packages: Iterable[str] = PACKAGES) -> dict[str, Path]:
    """Every module of ``packages`` under ``root``: dotted name -> file."""
    found: dict[str, Path] = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _run_at_import(body: Iterable[ast.stmt]) -> Iterator[ast.Import | ast.ImportFrom]:
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.If):
            if "TYPE_CHECKING" not in ast.unparse(node.test):
                yield from _run_at_import(node.body)
            yield from _run_at_import(node.orelse)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody, *(h.body for h in node.handlers)):
                yield from _run_at_import(block)


def imports(root: Path, *, through_packages: bool) -> Graph:
    """Module -> the modules it imports at module level. ``from P import name`` names ``P``
    (whose ``__init__`` runs) and ``P.name`` when that is a module; with ``through_packages``
    false, a ``from P import submodule`` names the submodule alone (``P`` is only a way in)."""
    known = modules(root)
    graph: Graph = {name: set() for name in known}
    for name, path in known.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in _run_at_import(ast.parse(path.read_text(), str(path)).body):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                subs = [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in known]
                whole = through_packages or len(subs) < len(node.names)
                targets = [*subs, *([base] if whole else [])]
            for named in targets:
                target = named
                while target and target not in known:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    graph[name].add(target)
    return graph


def circles(graph: Graph) -> list[list[str]]:
    """The strongly connected parts of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            part = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                part.append(member)
                if member == node:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


_ROW = re.compile(r"^\| `(?P<room>[^`]+)` \| (?P<imports>.+) \|$")


def drawn(document: str) -> list[tuple[str, list[str]]]:
    """The arrow table of ``### The arrows``: each room, top floor first, with its arrows."""
    section = document.split("### The arrows", 1)[1].split("\n#", 1)[0]
    rows = []
    for line in section.splitlines():
        match = _ROW.match(line.strip())
        if match:
            targets = re.findall(r"`([^`]+)`", match["imports"])
            rows.append((match["room"], targets))
    return rows


def _room_of(module: Path, root: Path, rooms: Iterable[str]) -> str | None:
    path = module.relative_to(root).as_posix()
    fitting = [room for room in rooms if path == room or path.startswith(room)]
    return max(fitting, key=len) if fitting else None


def arrows(root: Path, rooms: list[str]) -> tuple[set[tuple[str, str]], list[str]]:
    """The arrows between ``rooms`` that the imports make, and the modules in no room (a
    package's ``__init__`` that imports nothing is a way in, not a room)."""
    known = modules(root)
    graph = imports(root, through_packages=False)
    homeless = [
        name
        for name, path in known.items()
        if _room_of(path, root, rooms) is None and (graph[name] or path.name != "__init__.py")
    ]
    found = set()
    for name, targets in graph.items():
        source = _room_of(known[name], root, rooms)
        for target in targets:
            room = _room_of(known[target], root, rooms)
            if source and room and source != room:
                found.add((source, room))
    return found, homeless


def oversized(root: Path) -> dict[str, int]:
    """Modules of :data:`SIZED` over :data:`MAX_LINES` lines outside the gate."""
    sizes = {}
    for path in modules(root, SIZED).values():
        relative = path.relative_to(root).as_posix()
        lines = len(path.read_text().splitlines())
        if lines > MAX_LINES and not relative.startswith(UNBOUNDED):
            sizes[relative] = lines
    return sizes


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for package in SIZED:
        (tmp_path / package).mkdir(exist_ok=True)
    return tmp_path


# The checks themselves, on trees made to break them.


def test_a_package_init_that_imports_its_importer_is_a_circle(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "api/__init__.py": "",
            "api/console/__init__.py": "from api.console import view\n",
            "api/console/view.py": "from api.console import words\n",
            "api/console/words.py": "",
        },
    )
    assert circles(imports(root, through_packages=True)) == [["api.console", "api.console.view"]]


def test_imports_in_functions_and_for_type_checking_are_no_arrows(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "ledger/__init__.py": "",
            "ledger/a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
            "    from ledger import b\ndef f():\n    import ledger.b\n",
            "ledger/b.py": "import ledger.a\n",
        },
    )
    assert imports(root, through_packages=True)["ledger.a"] == set()
    assert circles(imports(root, through_packages=True)) == []


def test_an_undrawn_import_and_an_unbacked_arrow_are_both_seen(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "ledger/__init__.py": "",
            "ledger/low/__init__.py": "",
            "ledger/low/x.py": "from ledger.high import y\n",
            "ledger/high/__init__.py": "",
            "ledger/high/y.py": "",
        },
    )
    document = (
        "### The arrows\n\n| Room | Imports |\n| --- | --- |\n"
        "| `ledger/high/` | `ledger/low/` |\n| `ledger/low/` | nothing |\n"
    )
    rows = drawn(document)
    assert rows == [("ledger/high/", ["ledger/low/"]), ("ledger/low/", [])]
    found, homeless = arrows(root, [room for room, _ in rows])
    assert found == {("ledger/low/", "ledger/high/")}
    assert homeless == []


def test_a_long_module_outside_the_gate_is_named(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "ledger/big.py": "x = 1\n" * 401,
            "ledger/gate/big.py": "x = 1\n" * 900,
            "benchmarks/big.py": "x = 1\n" * 402,
            "benchmarks/scale/fits.py": "x = 1\n" * 400,
        },
    )
    assert oversized(root) == {"ledger/big.py": 401, "benchmarks/big.py": 402}


def test_benchmarks_are_sized_but_in_no_room(tmp_path: Path) -> None:
    root = _tree(tmp_path, {"ledger/__init__.py": "", "benchmarks/run.py": "import ledger\n"})
    assert "benchmarks.run" not in imports(root, through_packages=True)
    found, homeless = arrows(root, ["ledger/"])
    assert (found, homeless) == (set(), [])


# The code of this checkout.


@pytest.fixture(scope="module")
def table() -> list[tuple[str, list[str]]]:
    return drawn((ROOT / "docs" / "architecture.md").read_text())


def test_every_module_is_in_a_drawn_room(table: list[tuple[str, list[str]]]) -> None:
    _, homeless = arrows(ROOT, [room for room, _ in table])
    assert homeless == []


def test_the_drawn_arrows_are_the_imports_between_the_rooms(
    table: list[tuple[str, list[str]]],
) -> None:
    found, _ = arrows(ROOT, [room for room, _ in table])
    listed = {(room, target) for room, targets in table for target in targets}
    assert sorted(found - listed) == [], "imports the map does not draw"
    assert sorted(listed - found) == [], "arrows no import backs"


def test_no_drawn_arrow_runs_up(table: list[tuple[str, list[str]]]) -> None:
    floor = {room: number for number, (room, _) in enumerate(table)}
    upward = [(room, t) for room, targets in table for t in targets if floor[t] <= floor[room]]
    assert upward == []


def test_no_module_imports_another_in_a_circle() -> None:
    assert circles(imports(ROOT, through_packages=True)) == []


def test_no_module_outside_the_gate_is_over_400_lines() -> None:
    assert oversized(ROOT) == {}
