"""Every error the service raises is in the one hierarchy that ``ledger/errors.py`` draws.

The drawn tree in the module's docstring is what a reader consults to learn which errors exist
and what each one is a kind of; ``api/errors.py`` maps them to statuses. An error defined
somewhere else, or one left off the drawing, is an error a reader does not find.
"""

from __future__ import annotations

import importlib
import pkgutil
import re

import ledger.errors
from ledger.errors import LedgerError

PACKAGES = ("ledger", "projections", "processes", "api")
_BRANCH = re.compile(r"^(?P<indent>(?:[│ ] {3})*)[├└]── (?P<name>\w+)")


def _drawn() -> dict[str, str]:
    """Each error the docstring draws -> the error it is drawn under."""
    parents: dict[str, str] = {}
    stack = ["LedgerError"]
    for line in (ledger.errors.__doc__ or "").splitlines():
        match = _BRANCH.match(line.strip("\n")[4:])
        if match is None:
            continue
        depth = len(match["indent"]) // 4
        del stack[depth + 1 :]
        parents[match["name"]] = stack[depth]
        stack.append(match["name"])
    return parents


def _loaded_modules() -> None:
    for name in PACKAGES:
        package = importlib.import_module(name)
        for module in pkgutil.walk_packages(package.__path__, f"{name}."):
            importlib.import_module(module.name)


def _subclasses(root: type[BaseException]) -> set[type[BaseException]]:
    found: set[type[BaseException]] = set()
    todo = [root]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub not in found:
                found.add(sub)
                todo.append(sub)
    return found


def _public_parent(kind: type[BaseException]) -> str:
    """The nearest ledger error above ``kind`` that has a public name."""
    for base in kind.__mro__[1:]:
        if issubclass(base, LedgerError) and not base.__name__.startswith("_"):
            return base.__name__
    raise AssertionError(f"{kind} is no ledger error")


def test_the_drawn_tree_is_read_as_drawn() -> None:
    drawn = _drawn()
    assert drawn["InvalidInput"] == "LedgerError"
    assert drawn["PrincipalNotPinned"] == "PermissionDenied"
    assert drawn["EntitlementDenied"] == "PermissionDenied"


def test_every_ledger_error_is_defined_in_ledger_errors_and_drawn_under_its_parent() -> None:
    _loaded_modules()
    ours = {
        kind
        for kind in _subclasses(LedgerError)
        if kind.__module__.split(".")[0] in PACKAGES and not kind.__name__.startswith("_")
    }
    elsewhere = sorted(
        f"{k.__module__}.{k.__name__}" for k in ours if k.__module__ != "ledger.errors"
    )
    assert elsewhere == [], "ledger errors defined outside ledger/errors.py"
    real = {kind.__name__: _public_parent(kind) for kind in ours}
    assert _drawn() == real


def test_every_error_the_ledger_and_read_side_define_is_a_ledger_error() -> None:
    _loaded_modules()
    outside = sorted(
        f"{kind.__module__}.{kind.__name__}"
        for kind in _subclasses(Exception)
        if kind.__module__.split(".")[0] in ("ledger", "projections", "processes")
        and not issubclass(kind, LedgerError)
    )
    assert outside == []
