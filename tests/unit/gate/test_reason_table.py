"""Every reason code the gate emits is documented: in ``REASONS`` and in the table that opens
docs/gate.md, on the row of its check and of the module that emits it.

The emitted codes are read from the gate's source: every ``CheckResult(check, outcome,
reason, ...)`` whose check and reason are string literals (or the module's ``CHECK``), and,
where the reason is a parameter of the function that builds the result, the literals every
call of that function passes for it.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

from ledger.gate import REASONS

REPO = Path(__file__).resolve().parents[3]
GATE = REPO / "ledger" / "gate"
DOC = REPO / "docs" / "gate.md"

Emitted = set[tuple[str, str, str]]
"""(module path below ledger/gate, check, reason code)."""


def _literal(node: ast.expr | None, constants: dict[str, str]) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return constants.get(node.id)
    return None


def _loop_literals(function: ast.FunctionDef) -> dict[str, list[str | None]]:
    """The names of ``for`` loops over a tuple of strings in ``function``, with the strings."""
    out: dict[str, list[str | None]] = {}
    for node in ast.walk(function):
        if (
            isinstance(node, ast.For)
            and isinstance(node.target, ast.Name)
            and isinstance(node.iter, ast.Tuple | ast.List)
        ):
            out[node.target.id] = [_literal(e, {}) for e in node.iter.elts]
    return out


def _argument(call: ast.Call, index: int, name: str) -> ast.expr | None:
    if index < len(call.args):
        return call.args[index]
    return next((k.value for k in call.keywords if k.arg == name), None)


def _call_name(call: ast.Call) -> str | None:
    func = call.func
    return (
        func.id
        if isinstance(func, ast.Name)
        else func.attr
        if isinstance(func, ast.Attribute)
        else None
    )


def emitted_codes() -> Emitted:
    """The (module, check, code) triples the gate's source can emit."""
    trees = {
        str(path.relative_to(GATE)): ast.parse(path.read_text())
        for path in sorted(GATE.rglob("*.py"))
    }
    found: Emitted = set()
    # Builders whose reason (or check) is a parameter: function name -> what is fixed.
    builders: dict[str, list[tuple[int, str, str | None, int | None, str]]] = defaultdict(list)
    for module, tree in trees.items():
        constants = {
            t.id: n.value.value
            for n in tree.body
            if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant)
            for t in n.targets
            if isinstance(t, ast.Name) and isinstance(n.value.value, str)
        }
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef):
                continue
            params = [a.arg for a in function.args.args]
            loops = _loop_literals(function)
            for call in ast.walk(function):
                if not (isinstance(call, ast.Call) and _call_name(call) == "CheckResult"):
                    continue
                check_node = _argument(call, 0, "check")
                reason_node = _argument(call, 2, "reason")
                checks = loops.get(getattr(check_node, "id", ""), [_literal(check_node, constants)])
                reason = _literal(reason_node, constants)
                if reason is not None:
                    found.update((module, c, reason) for c in checks if c is not None)
                elif isinstance(reason_node, ast.Name) and reason_node.id in params:
                    index = params.index(reason_node.id)
                    builders[function.name].append((index, reason_node.id, checks[0], None, module))
        for node in tree.body:
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
                call = node.value
                if _call_name(call) == "CheckResult":
                    check = _literal(_argument(call, 0, "check"), constants)
                    reason = _literal(_argument(call, 2, "reason"), constants)
                    if check is not None and reason is not None:
                        found.add((module, check, reason))
    for module, tree in trees.items():
        for call in ast.walk(tree):
            if not isinstance(call, ast.Call):
                continue
            for index, name, check, _, _ in builders.get(_call_name(call) or "", ()):
                reason = _literal(_argument(call, index, name), {})
                if reason is not None and check is not None:
                    found.add((module, check, reason))
    return found


def documented_rows() -> list[tuple[str, set[str], set[str]]]:
    """The rows of the table that opens docs/gate.md: check, modules, reason codes."""
    rows = []
    for line in DOC.read_text().split("\n## ", 1)[0].splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or cells[0] in ("check", "") or set(cells[0]) <= {"-", " "}:
            continue
        modules = set(re.findall(r"`([\w/]+\.py)`", cells[1]))
        codes = set(re.findall(r"`(\w+)`", cells[2]))
        rows.append((cells[0], modules, codes))
    return rows


def test_reads_the_codes_the_gate_emits_from_its_source() -> None:
    found = emitted_codes()
    assert ("citation/quote.py", "quote", "quote_mismatch") in found
    assert ("polarity/stretch.py", "polarity", "negation_mismatch") in found
    assert ("factual.py", "polarity", "mismatch_unaligned") in found
    assert len({code for _, _, code in found}) > 40


def test_every_emitted_code_is_in_reasons() -> None:
    missing = {(check, code) for _, check, code in emitted_codes()} - set(REASONS)
    assert not missing


def test_every_emitted_code_is_in_the_table_on_its_checks_and_modules_row() -> None:
    rows = documented_rows()
    assert rows, "docs/gate.md opens with the table check -> module -> reason codes"
    undocumented = [
        (module, check, code)
        for module, check, code in sorted(emitted_codes())
        if not any(c == check and module in m and code in codes for c, m, codes in rows)
    ]
    assert not undocumented


def test_every_code_in_the_table_is_in_reasons() -> None:
    for check, _, codes in documented_rows():
        for code in codes:
            assert (check, code) in REASONS, (check, code)
