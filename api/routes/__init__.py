"""One router per resource."""

from __future__ import annotations

from fastapi import APIRouter, FastAPI


def add_routes(app: FastAPI, router: APIRouter) -> None:
    """Serve ``router``'s routes from ``app``, as the router built them.

    Each route was built once, when its module was imported: its dependencies analysed, its
    parameter and body models made, its handler wrapped. ``app.include_router`` builds every
    route again for each app that includes it (since FastAPI 0.160, on the first request
    that reaches the router): about 90 ms of the first requests of each new app, once per
    process in production and once per test in the suite. None of our routers is included
    with a prefix, tags or dependencies of its own, so the routes are served as they are."""
    app.router.routes.extend(router.routes)
