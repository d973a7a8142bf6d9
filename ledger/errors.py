"""The ledger's error hierarchy.

Every error the domain raises derives from :class:`LedgerError`. The API maps each subclass to
one HTTP status in a single place, so the domain never needs to know about HTTP.
"""

from __future__ import annotations


class LedgerError(Exception):
    """Root of every error raised by provledger's domain code."""


class InvalidInput(LedgerError):
    """A value supplied by a caller breaks a rule; names the field and the rule.

    ``errors`` lists every violation found (each ``{field, rule, message}``) when a request
    breaks more than one rule; the first is also in ``field``, ``rule`` and ``message``.
    """

    def __init__(
        self,
        field: str,
        rule: str,
        message: str,
        errors: list[dict[str, str]] | None = None,
    ) -> None:
        super().__init__(message)
        self.field = field
        self.rule = rule
        self.message = message
        self.errors = errors or [{"field": field, "rule": rule, "message": message}]

    @classmethod
    def many(cls, errors: list[dict[str, str]]) -> InvalidInput:
        """One error carrying several violations."""
        first = errors[0]
        summary = "; ".join(f"{e['field']}: {e['message']}" for e in errors)
        return cls(first["field"], first["rule"], summary, errors)


class NotFound(LedgerError):
    """The thing asked for does not exist in the ledger."""


class Conflict(LedgerError):
    """The request contradicts what the ledger already holds."""


class AuthenticationFailed(LedgerError):
    """No credential, or one the ledger does not recognise."""


class PermissionDenied(LedgerError):
    """A recognised credential that lacks the scope the operation needs."""


class KeyringError(LedgerError):
    """The signing keys could not be loaded, created or rotated."""


class CanonicalisationError(LedgerError, ValueError):
    """A value has no RFC 8785 canonical JSON form (e.g. a lone surrogate, NaN)."""


class PayloadTooLarge(LedgerError):
    """A submitted document is over the configured size limit."""


class ConfigurationError(LedgerError):
    """The service's settings are inconsistent (found at start-up, not on a request)."""


class LedgerIntegrityError(LedgerError):
    """Something the service read back to decide or sign failed verification: an event's
    signature or chain link, or a read-model row that disagrees with its verified event.

    ``reason`` is a reason code (``ledger.verify.FailureReason`` for events, ``read_model_*``
    for rows); ``position`` names the event (aggregate, version and, when known, its
    notification id) so an operator can find it. Never caused by a request's input.
    """

    def __init__(self, reason: str, detail: str, position: dict[str, object]) -> None:
        where = ", ".join(
            f"{name} {value}" for name, value in position.items() if value is not None
        )
        super().__init__(f"{reason} at {where}: {detail}")
        self.reason = reason
        self.detail = detail
        self.position = position
