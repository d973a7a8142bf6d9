"""The readiness checks behind ``/readyz``: each one named, each failure said in a line.

A check is one of: ``database`` (the event store answers), ``signing_key`` (a signing key is
loaded), ``projection:<name>`` for each read model (its last catch-up did not fail and it is
at most ``PROVLEDGER_PROJECTION_MAX_LAG`` events behind the log; its lag in events and in
seconds, the age of the oldest event it has not applied, is reported) and ``witness`` when one is
configured (it has not refused the log; an unreachable witness is reported, not failed: the
log keeps its own signature, and every replica would otherwise leave the balancer at once).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from api.services import Services
from projections.lag import projection_lag


@dataclass(frozen=True)
class Check:
    """One named readiness check."""

    ok: bool
    detail: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        """``{"ok": ..., "detail": ..., ...}`` (no detail when there is nothing to say)."""
        body: dict[str, Any] = {"ok": self.ok}
        if self.detail is not None:
            body["detail"] = self.detail
        body.update(self.extra)
        return body


@dataclass(frozen=True)
class Readiness:
    """Every check by name, and the log position when the database answered."""

    checks: dict[str, Check]
    position: int | None
    witness: dict[str, object] | None = None
    """The witness's status (``WitnessStatus.as_json``) when one is configured."""

    @property
    def failing(self) -> list[str]:
        """The names of the failing checks, in check order."""
        return [name for name, check in self.checks.items() if not check.ok]

    def summary(self) -> str:
        """One line naming each failing check and why."""
        return "; ".join(f"{name}: {self.checks[name].detail}" for name in self.failing)


def _failed(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def check_readiness(services: Services) -> Readiness:
    """Run every check (blocking: database reads; call it off the event loop)."""
    checks: dict[str, Check] = {}
    position: int | None
    try:
        position = services.ledger.last_position()
        checks["database"] = Check(True)
    except Exception as exc:  # any database failure means "not ready"
        position = None
        checks["database"] = Check(False, _failed(exc))
    key = getattr(services.ledger, "signing_key", None)
    if key is None:
        checks["signing_key"] = Check(False, "no signing key is loaded")
    else:
        checks["signing_key"] = Check(True, extra={"kid": key.kid})
    bound = services.settings.projection_max_lag
    for runner in services.read_side.runners:
        name = f"projection:{runner.projection.name}"
        if runner.failure is not None:
            checks[name] = Check(False, f"its last catch-up failed: {runner.failure}")
            continue
        if position is None:
            checks[name] = Check(False, "the event store does not answer")
            continue
        try:
            behind = projection_lag(services.ledger, runner, position)
        except Exception as exc:
            checks[name] = Check(False, f"its position cannot be read: {_failed(exc)}")
            continue
        lag = {"lag": behind.events, "lag_seconds": round(behind.seconds, 3)}
        if behind.events > bound:
            detail = (
                f"behind the log by {behind.events} events, the oldest recorded "
                f"{behind.seconds:.1f} s ago (bound {bound} events)"
            )
            checks[name] = Check(False, detail, lag)
        else:
            checks[name] = Check(True, extra=lag)
    submitter = services.witness
    if submitter is None:
        return Readiness(checks, position)
    status = submitter.status
    if status.state == "refused":
        checks["witness"] = Check(False, f"the witness refused the log: {status.detail}")
    else:
        checks["witness"] = Check(True, extra={"state": status.state})
    return Readiness(checks, position, status.as_json())
