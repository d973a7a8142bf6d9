"""The ledger's error hierarchy: every error the domain raises, in one place.

The API maps each subclass to one HTTP status in a single table (``api/errors.py``), so the
domain never needs to know about HTTP. Errors that carry a reason code take it as a
:class:`~enum.StrEnum` defined beside the check that raises it.

    LedgerError
    ├── InvalidInput              a caller's value breaks a rule (field, rule, message)
    │   ├── MalformedBody         the body is not one strict UTF-8 JSON value
    │   └── UnsupportedMediaType  the body is declared as something other than JSON
    ├── LossBoundaryBreached      a transformation's output dropped must-keep items
    ├── CanonicalisationError     a value with no RFC 8785 form (also a ValueError)
    ├── TimeOutOfRange            a time outside years 0001-9999 in UTC (also a ValueError)
    ├── PayloadTooLarge           a document over the configured size limit
    ├── NotFound                  no such thing in the ledger
    ├── Conflict                  contradicts what the ledger holds
    │   ├── ConflictingRequest    an identifier reused for a different request
    │   ├── PolicyNotInForce      names a policy version the ledger no longer decides by
    │   ├── ReceiptExpired        the receipt expired; it takes no more claims
    │   └── ConcurrentWrite       another writer changed the same record; retryable
    │       └── ConcurrentProjection  another runner advanced the same read model first
    ├── AuthenticationFailed      no credential, or an unknown one
    ├── PermissionDenied          a known credential without the scope
    │   ├── PrincipalNotPinned    a principal claims more than its API key pins
    │   └── EntitlementDenied     the principal may not see evidence it asked for
    ├── KeyringError              signing keys not loadable, creatable or rotatable
    ├── ConfigurationError        inconsistent settings, found at start-up
    ├── LedgerIntegrityError      something read back to decide or sign failed verification
    ├── SpanIntegrityError        spans that break an invariant (also a ValueError)
    ├── MalformedEvent            a stored event is not a well-formed signed envelope
    ├── EventCheckFailed          one event failed a log check (reason: FailureReason)
    ├── ReceiptReplayError        event bodies do not replay to a receipt
    ├── ReplayError               the log failed verification during a replay
    ├── MerkleVerificationError   a Merkle proof, root or size failed (RFC 9162)
    ├── CheckpointError           a checkpoint or signed note malformed or forged (C2SP)
    ├── TransparencyLogTampered   the stored tree does not give the signed checkpoint's root
    ├── ReadModelsAhead           read models hold events the event store no longer has
    ├── PositionNotReached        the read models did not reach a requested log position
    ├── WitnessError              a witness refused, or a log contradicts its cosignature
    ├── BundleVerificationError   an audit bundle failed one check (reason: BundleReason)
    └── EntailmentError           the entailment verifier gave no answer
"""

from __future__ import annotations

from enum import StrEnum


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


class MalformedBody(InvalidInput):
    """The body is not one strict UTF-8 JSON value (400 ``malformed-body``)."""


class UnsupportedMediaType(InvalidInput):
    """The body is declared as something other than JSON (415 ``unsupported-media-type``)."""


class LossBoundaryBreached(LedgerError):
    """A transformation's output dropped must-keep items of its inputs (its declared loss
    boundary did not release them). ``dropped`` names each item (``must_keep``, ``cue``,
    ``item`` as the input writes it, ``span_id``, ``input``: its index in ``inputs``);
    ``errors`` has one ``{field: "output", rule: <must_keep>, message}`` per item."""

    def __init__(self, message: str, dropped: list[dict[str, object]]) -> None:
        super().__init__(message)
        self.message = message
        self.dropped = dropped
        self.errors = [
            {
                "field": "output",
                "rule": str(item["must_keep"]),
                "message": f"the output drops {item['cue']} {item['item']!r} of span "
                f"{item['span_id']} (inputs[{item['input']}])",
            }
            for item in dropped
        ]


class NotFound(LedgerError):
    """The thing asked for does not exist in the ledger."""


class Conflict(LedgerError):
    """The request contradicts what the ledger already holds."""


class ConflictingRequest(Conflict):
    """A request that reuses an identifier (an ``inference_id``, an ``Idempotency-Key``) the
    ledger already holds for a different request; names the field and the rule."""

    def __init__(self, field: str, rule: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.rule = rule
        self.errors = [{"field": field, "rule": rule, "message": message}]


class PolicyNotInForce(Conflict):
    """The request names an access policy version the ledger does not decide by now."""


class ReceiptExpired(Conflict):
    """The receipt expired: what it stood on changed, its time passed or its policy was
    retired; it takes no more claims (open a new receipt with current evidence)."""


class ConcurrentWrite(Conflict):
    """Another writer changed the same record at the same moment; nothing was written, and
    the same request may succeed when sent again (409 with ``retryable: true``)."""


class ConcurrentProjection(ConcurrentWrite):
    """Another runner advanced the same projection first; the batch was rolled back (the
    runner reads the position again and goes on: never seen by a caller)."""


class AuthenticationFailed(LedgerError):
    """No credential, or one the ledger does not recognise."""


class PermissionDenied(LedgerError):
    """A recognised credential that lacks the scope the operation needs."""


class _Refusal(PermissionDenied):
    """A refusal that names each refused field and rule (``errors``), never protected data."""

    def __init__(self, message: str, errors: list[dict[str, str]]) -> None:
        super().__init__(message)
        self.message = message
        self.errors = errors


class PrincipalNotPinned(_Refusal):
    """The request's principal claims attributes its API key does not pin."""


class EntitlementDenied(_Refusal):
    """The principal may not see evidence the request names. ``errors`` carry only the
    request's own field (``evidence[i]``) and a safe exclusion code, never the source."""


class KeyringError(LedgerError):
    """The signing keys could not be loaded, created or rotated."""


class CanonicalisationError(LedgerError, ValueError):
    """A value has no RFC 8785 canonical JSON form (e.g. a lone surrogate, NaN)."""


class TimeOutOfRange(LedgerError, ValueError):
    """A time whose UTC value falls outside years 0001-9999."""


class PayloadTooLarge(LedgerError):
    """A submitted document is over the configured size limit."""


class ConfigurationError(LedgerError):
    """The service's settings are inconsistent (found at start-up, not on a request)."""


class LedgerIntegrityError(LedgerError):
    """Something the service read back to decide or sign failed verification: an event's
    signature or chain link, or a read-model row that disagrees with its verified event.

    ``reason`` is a reason code (:class:`ledger.audit.log_verify.FailureReason`
    for events, ``read_model_*`` for rows); ``position`` names the event (aggregate, version
    and, when known, its notification id) so an operator can find it. Never caused by a
    request's input.
    """

    def __init__(self, reason: str, detail: str, position: dict[str, object]) -> None:
        where = ", ".join(
            f"{name} {value}" for name, value in position.items() if value is not None
        )
        super().__init__(f"{reason} at {where}: {detail}")
        self.reason = reason
        self.detail = detail
        self.position = position


class SpanIntegrityError(LedgerError, ValueError):
    """Spans that break an invariant: text not at their offsets, or overlapping siblings."""


class MalformedEvent(LedgerError):
    """A stored event's state is not a well-formed signed envelope."""


class ReceiptReplayError(LedgerError):
    """The event bodies do not replay to a receipt; says which event and why."""


class ReplayError(LedgerError):
    """The log failed verification during replay (names the event and the reason)."""


class BundleVerificationError(LedgerError):
    """A bundle failed one check: ``reason`` says which, ``detail`` says expected versus
    found."""

    def __init__(self, reason: StrEnum, detail: str) -> None:
        super().__init__(f"{reason.value}: {detail}")
        self.reason = reason
        self.detail = detail


class WitnessError(LedgerError):
    """A witness refused a checkpoint, or a log contradicts what its witness cosigned.

    ``size`` is the witness's own size for the log, where the refusal reports it.
    """

    def __init__(self, reason: StrEnum, message: str, size: int | None = None) -> None:
        super().__init__(f"{reason.value}: {message}")
        self.reason = reason
        self.message = message
        self.size = size


class CheckpointError(LedgerError):
    """A checkpoint or signed note is malformed, unsigned by the key asked for, or forged."""


class MerkleVerificationError(LedgerError):
    """A Merkle proof, root or tree size failed verification; says expected versus found."""


class TransparencyLogTampered(LedgerError):
    """The stored tree does not give the root of the newest signed checkpoint (or that
    checkpoint is missing or not signed by a trusted key); nothing is signed over it."""


class ReadModelsAhead(LedgerError):
    """The read models hold events the event store no longer has; names the positions."""


class PositionNotReached(LedgerError):
    """The read models did not reach the requested log position within the bound."""


class EntailmentError(LedgerError):
    """The verifier could not give an answer (unreachable, malformed reply)."""


class EventCheckFailed(LedgerError):
    """One event failed a check: carries the reason code and the detail."""

    def __init__(self, reason: StrEnum, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail
