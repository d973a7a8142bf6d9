"""A route parses the request, calls one desk method and maps the result
(docs/architecture.md, "Routes"): read from the route modules' source (``ast``).

- Every route function of ``api/routes/`` takes at most one desk (a parameter whose annotation
  names a ``...Desk`` or ``...DeskDep``) and calls it exactly once, directly or handed to a
  worker thread (``run_in_threadpool(desk.method, ...)``); the few routes that call none are
  named below with the reason.
- No route takes the read side, the runtime, the ledger, the key sight, the expiry process or
  the whole services object: what a request needs from them is a desk's business.
- No route module imports a read-model query module (``projections/*_queries.py``), the
  pinned-key view or the filtered paging (``projections/pinned_view.py``, ``pages.py``), or a
  SQL library or driver.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ROUTES = ROOT / "api" / "routes"

NO_DESK = {
    "GET /healthz": ("liveness: answers without reading anything", set()),
    "GET /readyz": ("readiness: asks each running part whether it is up", {"ServicesDep"}),
    "GET /metrics": ("the exposition of the process's collector registry", set()),
    "POST /v1/route": ("the router's decision table applied to the body: reads nothing", set()),
}
"""Routes that call no desk, why, and what they may take instead."""

FORBIDDEN_DEPENDENCIES = {
    "ReadSideDep",
    "RuntimeDep",
    "LedgerDep",
    "SightDep",
    "ExpiryProcessDep",
    "WitnessDep",
}
"""What a route must not take: a desk reads these for it."""

FORBIDDEN_IMPORTS = re.compile(
    r"^(projections\.\w+_queries|projections\.pinned_view|projections\.pages"
    r"|sqlalchemy|asyncpg|sqlite3|aiosqlite|psycopg)(\.|$)"
)
_VERBS = {"get", "post", "put", "patch", "delete", "head"}


def _annotation_names(node: ast.expr | None) -> set[str]:
    if node is None:
        return set()
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} | {
        n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)
    }


def _route_of(function: ast.AsyncFunctionDef | ast.FunctionDef) -> str | None:
    """``"GET /v1/..."`` when ``function`` is decorated as a route, else None."""
    for decorator in function.decorator_list:
        if (
            isinstance(decorator, ast.Call)
            and isinstance(decorator.func, ast.Attribute)
            and decorator.func.attr in _VERBS
            and decorator.args
            and isinstance(decorator.args[0], ast.Constant)
        ):
            return f"{decorator.func.attr.upper()} {decorator.args[0].value}"
    return None


Function = ast.AsyncFunctionDef | ast.FunctionDef


def functions(source: str) -> dict[str, Function]:
    """The module-level functions of a module's source, by name."""
    return {
        node.name: node
        for node in ast.parse(source).body
        if isinstance(node, ast.AsyncFunctionDef | ast.FunctionDef)
    }


def routes(source: str) -> Iterator[tuple[str, Function]]:
    """Each route function of a module's source, with its ``"METHOD path"``."""
    for function in functions(source).values():
        route = _route_of(function)
        if route is not None:
            yield route, function


def desk_calls(
    function: Function, helpers: dict[str, Function] | None = None
) -> tuple[set[str], int, set[str]]:
    """The function's desk parameters, how many calls it makes through them (a desk handed
    to a function of the same module counts as the calls that function makes through its
    own), and the forbidden dependencies it takes."""
    arguments = [*function.args.args, *function.args.kwonlyargs]
    desks = set()
    forbidden = set()
    for argument in arguments:
        names = _annotation_names(argument.annotation)
        if any(name.endswith(("Desk", "DeskDep")) for name in names):
            desks.add(argument.arg)
        forbidden |= names & FORBIDDEN_DEPENDENCIES
        if "Services" in names or "ServicesDep" in names:
            forbidden.add("ServicesDep")
    calls = 0
    for node in ast.walk(function):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            calls += node.value.id in desks
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in (helpers or {})
            and any(
                isinstance(arg, ast.Name) and arg.id in desks
                for arg in [*node.args, *(k.value for k in node.keywords)]
            )
        ):
            calls += desk_calls((helpers or {})[node.func.id], helpers)[1]
    return desks, calls, forbidden


def imported(source: str) -> set[str]:
    """Every module a source imports, anywhere in it."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
    return found


def route_modules() -> list[Path]:
    return sorted(path for path in ROUTES.glob("*.py") if path.name != "__init__.py")


def test_the_routes_are_found() -> None:
    found = [route for path in route_modules() for route, _ in routes(path.read_text())]
    assert len(found) >= 50
    assert "POST /v1/receipts" in found


@pytest.mark.parametrize("path", route_modules(), ids=lambda p: p.name)
def test_each_route_calls_one_desk_method(path: Path) -> None:
    wrong = {}
    source = path.read_text()
    for route, function in routes(source):
        desks, calls, forbidden = desk_calls(function, functions(source))
        forbidden -= NO_DESK[route][1] if route in NO_DESK else set()
        if forbidden:
            wrong[route] = f"takes {sorted(forbidden)}"
        elif route in NO_DESK:
            if desks:
                wrong[route] = f"named as calling no desk, but takes {sorted(desks)}"
        elif len(desks) != 1 or calls != 1:
            wrong[route] = f"{len(desks)} desks, {calls} calls through them"
    assert wrong == {}


@pytest.mark.parametrize("path", route_modules(), ids=lambda p: p.name)
def test_no_route_module_reads_the_read_models_itself(path: Path) -> None:
    assert sorted(m for m in imported(path.read_text()) if FORBIDDEN_IMPORTS.match(m)) == []


# The checks themselves, on sources made to break them.

_TWO_CALLS = """
@router.get("/v1/things")
async def things(desk: ThingDeskDep, read_side: ReadSideDep) -> dict:
    await desk.first()
    return await run_in_threadpool(desk.second, 1)
"""


def test_two_calls_and_a_read_side_are_seen() -> None:
    [(route, function)] = routes(_TWO_CALLS)
    assert route == "GET /v1/things"
    assert desk_calls(function) == ({"desk"}, 2, {"ReadSideDep"})


_THROUGH_A_HELPER = """
async def _page(desk: ThingDeskDep, n: int) -> dict:
    return await desk.page(n)

@router.get("/v1/things")
async def things(desk: ThingDeskDep) -> dict:
    return await _page(desk, 1)

@router.get("/v1/other-things")
async def other_things(desk: ThingDeskDep) -> dict:
    await desk.first()
    return await _page(desk, 1)
"""


def test_a_desk_handed_to_a_helper_counts_the_helpers_calls() -> None:
    helpers = functions(_THROUGH_A_HELPER)
    counted = {route: desk_calls(f, helpers)[1] for route, f in routes(_THROUGH_A_HELPER)}
    assert counted == {"GET /v1/things": 1, "GET /v1/other-things": 2}


def test_a_query_module_import_is_seen() -> None:
    source = "from projections.claim_queries import claim_lookup\nimport sqlalchemy\n"
    assert {m for m in imported(source) if FORBIDDEN_IMPORTS.match(m)} == {
        "projections.claim_queries",
        "projections.claim_queries.claim_lookup",
        "sqlalchemy",
    }
