"""OpenTelemetry tracing: off by default, configured by the standard ``OTEL_*`` variables.

Tracing is on when ``OTEL_TRACES_EXPORTER`` names an exporter (``otlp``, ``console``) or an
OTLP endpoint is given (``OTEL_EXPORTER_OTLP_ENDPOINT`` / ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``,
then the exporter is ``otlp``), unless ``OTEL_SDK_DISABLED=true``. The OTLP exporter speaks
``http/protobuf`` (the ``otlp`` extra: ``pip install 'provledger[otlp]'``) and reads its own
variables (endpoint, headers, timeout, compression); the SDK reads ``OTEL_SERVICE_NAME``,
``OTEL_RESOURCE_ATTRIBUTES``, ``OTEL_TRACES_SAMPLER`` and ``OTEL_BSP_*``.

Spans: one per HTTP request (continuing a caller's W3C ``traceparent``), and, through
:mod:`ledger.tracing`, one per gate judgement, event-store append and projection batch. Each
span opened while a request is handled carries that request's ``request_id`` attribute; with
tracing on, every log line carries the current ``trace_id`` and ``span_id``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from typing import TYPE_CHECKING, Any

import structlog
from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.propagate import extract

from ledger import tracing
from ledger.errors import ConfigurationError
from ledger.tracing import Attributes, AttributeValue, OpenSpan

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider

INSTRUMENTATION = "provledger"
"""The tracer's instrumentation scope name."""
DEFAULT_SERVICE_NAME = "provledger"
"""``service.name`` unless ``OTEL_SERVICE_NAME`` or ``OTEL_RESOURCE_ATTRIBUTES`` names one."""
EXPORTERS = ("otlp", "console", "none")


class _Recording:
    """An OpenTelemetry span behind :class:`ledger.tracing.OpenSpan`."""

    __slots__ = ("_span",)

    def __init__(self, span: trace.Span) -> None:
        self._span = span

    def set(self, key: str, value: AttributeValue) -> None:
        """Add or replace one attribute."""
        self._span.set_attribute(key, value)


class OtelTracer:
    """:class:`ledger.tracing.Tracer` on an OpenTelemetry tracer; every span gets the bound
    ``request_id`` (structlog's context variables travel into worker threads with the
    request)."""

    def __init__(self, tracer: trace.Tracer) -> None:
        self.tracer = tracer

    def span(self, name: str, attributes: Attributes) -> AbstractContextManager[OpenSpan]:
        """A child of the current span, with the request id when there is one."""
        return self._span(name, attributes)

    @contextmanager
    def _span(self, name: str, attributes: Attributes) -> Iterator[OpenSpan]:
        request_id = structlog.contextvars.get_contextvars().get("request_id")
        if request_id is not None:
            attributes = {**attributes, "request_id": request_id}
        with self.tracer.start_as_current_span(name, attributes=attributes) as span:
            yield _Recording(span)


def exporter_name(environ: Mapping[str, str]) -> str | None:
    """The span exporter the environment asks for, or None when tracing is off."""
    if environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return None
    names = [n.strip().lower() for n in environ.get("OTEL_TRACES_EXPORTER", "").split(",")]
    names = [n for n in names if n]
    if not names:
        endpoints = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        return "otlp" if any(environ.get(v, "").strip() for v in endpoints) else None
    if len(names) > 1 or names[0] not in EXPORTERS:
        raise ConfigurationError(
            f"OTEL_TRACES_EXPORTER {environ['OTEL_TRACES_EXPORTER']!r}: expected one of "
            f"{', '.join(EXPORTERS)}"
        )
    return None if names[0] == "none" else names[0]


def _exporter(name: str, environ: Mapping[str, str]) -> Any:
    from opentelemetry.sdk.trace.export import ConsoleSpanExporter

    if name == "console":
        return ConsoleSpanExporter()
    protocol = environ.get(
        "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", environ.get("OTEL_EXPORTER_OTLP_PROTOCOL", "")
    ).strip()
    if protocol not in ("", "http/protobuf"):
        raise ConfigurationError(
            f"OTEL_EXPORTER_OTLP_PROTOCOL {protocol!r}: provledger exports OTLP over "
            "http/protobuf only"
        )
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    except ImportError as exc:
        raise ConfigurationError(
            "OTEL_TRACES_EXPORTER=otlp needs the OTLP exporter: pip install 'provledger[otlp]'"
        ) from exc
    endpoint = environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "").strip()
    base = environ.get("OTEL_EXPORTER_OTLP_ENDPOINT", "").strip()
    if not endpoint and base:
        endpoint = base.rstrip("/") + "/v1/traces"  # the OTLP/HTTP path for traces
    return OTLPSpanExporter(endpoint=endpoint or None)


def provider_from_environment(environ: Mapping[str, str] | None = None) -> TracerProvider | None:
    """A tracer provider exporting in batches as the ``OTEL_*`` variables say; None when
    tracing is off (nothing of the SDK is imported then)."""
    environ = os.environ if environ is None else environ
    name = exporter_name(environ)
    if name is None:
        return None
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    attributes: dict[str, str] = {}
    if environ.get("OTEL_SERVICE_NAME"):
        attributes["service.name"] = environ["OTEL_SERVICE_NAME"]
    elif "service.name=" not in environ.get("OTEL_RESOURCE_ATTRIBUTES", ""):
        attributes["service.name"] = DEFAULT_SERVICE_NAME
    resource = Resource.create(attributes)
    provider = TracerProvider(resource=resource)
    provider.add_span_processor(BatchSpanProcessor(_exporter(name, environ)))
    return provider


class Tracing:
    """Tracing installed in this process: :meth:`close` uninstalls it and, when it owns the
    provider, exports the spans still queued."""

    def __init__(self, tracer: OtelTracer, shutdown: Callable[[], object] | None) -> None:
        self.tracer = tracer
        self._shutdown = shutdown

    def close(self) -> None:
        """Stop recording; flush and shut the provider down if this owns it."""
        if tracing.installed() is self.tracer:
            tracing.install(None)
        if self._shutdown is not None:
            self._shutdown()


def install_provider(provider: trace.TracerProvider, owned: bool = True) -> Tracing:
    """Record every span of this process with ``provider`` (a test passes one with an
    in-memory exporter); ``owned``: :meth:`Tracing.close` shuts it down."""
    tracer = OtelTracer(provider.get_tracer(INSTRUMENTATION))
    tracing.install(tracer)
    shutdown = getattr(provider, "shutdown", None) if owned else None
    return Tracing(tracer, shutdown)


def start_tracing(environ: Mapping[str, str] | None = None) -> Tracing | None:
    """Install tracing as the environment asks (None when it is off, or when tracing is
    installed already, e.g. by a test)."""
    if tracing.installed() is not None:
        return None
    provider = provider_from_environment(environ)
    if provider is None:
        return None
    return install_provider(provider)


@contextmanager
def request_span(
    method: str, headers: list[tuple[bytes, bytes]], request_id: str
) -> Iterator[trace.Span | None]:
    """The server span of one request, child of the caller's ``traceparent`` if sent; yields
    None (and costs nothing) while tracing is off."""
    installed = tracing.installed()
    if not isinstance(installed, OtelTracer):
        yield None
        return
    carrier = {k.decode("latin-1"): v.decode("latin-1") for k, v in headers}
    token = otel_context.attach(extract(carrier))
    try:
        with installed.tracer.start_as_current_span(
            f"HTTP {method}",
            kind=trace.SpanKind.SERVER,
            attributes={"http.request.method": method, "request_id": request_id},
        ) as span:
            yield span
    finally:
        otel_context.detach(token)


def end_request_span(span: trace.Span, method: str, route: str | None, status: int) -> None:
    """Name the request's span by its route template and record the status."""
    if route is not None:
        span.update_name(f"HTTP {method} {route}")
        span.set_attribute("http.route", route)
    span.set_attribute("http.response.status_code", status)
    if status >= 500:
        span.set_status(trace.Status(trace.StatusCode.ERROR))


def add_trace_ids(
    logger: object, name: str, event_dict: structlog.typing.EventDict
) -> structlog.typing.EventDict:
    """A log processor: the current span's ``trace_id`` and ``span_id`` (hex), when a span is
    being recorded (never while tracing is off)."""
    context = trace.get_current_span().get_span_context()
    if context.is_valid:
        event_dict.setdefault("trace_id", format(context.trace_id, "032x"))
        event_dict.setdefault("span_id", format(context.span_id, "016x"))
    return event_dict
