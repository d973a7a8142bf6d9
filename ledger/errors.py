"""The ledger's error hierarchy.

Every error the domain raises derives from :class:`LedgerError`. The API maps each subclass to
one HTTP status in a single place, so the domain never needs to know about HTTP.
"""

from __future__ import annotations


class LedgerError(Exception):
    """Root of every error raised by provledger's domain code."""


class InvalidInput(LedgerError):
    """A value supplied by a caller breaks a rule; names the field and the rule."""

    def __init__(self, field: str, rule: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.rule = rule
        self.message = message


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
