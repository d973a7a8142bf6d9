"""The context architecture router: one of exactly five outcomes by a fixed decision table."""

from ledger.router.table import (
    OUTCOMES,
    ROUTER_VERSION,
    Outcome,
    RouteDecision,
    RouteRequest,
    declared_decision,
    route,
)

__all__ = [
    "OUTCOMES",
    "ROUTER_VERSION",
    "Outcome",
    "RouteDecision",
    "RouteRequest",
    "declared_decision",
    "route",
]
