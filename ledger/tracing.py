"""Where the ledger's work opens trace spans, without knowing who records them.

The gate's judgements, the event store's appends and the projections' batches call
:func:`span`. By default nothing records them: :func:`span` returns one shared no-op context,
so the cost when tracing is off is a function call. The API (``api/tracing.py``) installs a
:class:`Tracer` backed by OpenTelemetry when the ``OTEL_*`` environment asks for tracing; the
domain itself never imports a tracing library.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Protocol

AttributeValue = str | int | float | bool
Attributes = dict[str, AttributeValue]


class OpenSpan(Protocol):
    """A span being recorded: attributes may be added until it ends."""

    def set(self, key: str, value: AttributeValue) -> None:
        """Add or replace one attribute."""


class Tracer(Protocol):
    """Opens spans as children of the current one (the request's, when there is one)."""

    def span(self, name: str, attributes: Attributes) -> AbstractContextManager[OpenSpan]:
        """A context that records the work done inside it as one span."""


class _Unrecorded:
    """The span and the context of a tracer that records nothing (one shared instance)."""

    def set(self, key: str, value: AttributeValue) -> None:
        """Nothing is recorded."""

    def __enter__(self) -> _Unrecorded:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


UNRECORDED = _Unrecorded()
"""The no-op span: what :func:`span` returns while no tracer is installed."""

_tracer: Tracer | None = None


def span(name: str, attributes: Attributes | None = None) -> AbstractContextManager[OpenSpan]:
    """Record the work inside the ``with`` block as a span called ``name``, if anyone traces."""
    tracer = _tracer
    if tracer is None:
        return UNRECORDED
    return tracer.span(name, attributes or {})


def install(tracer: Tracer | None) -> None:
    """Make ``tracer`` record every later span (``None``: stop recording)."""
    global _tracer  # noqa: PLW0603 - one tracer per process, like the logging configuration
    _tracer = tracer


def installed() -> Tracer | None:
    """The installed tracer, if any."""
    return _tracer
