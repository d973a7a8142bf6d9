"""The quote check: a binding's quote must be its span's text, or a contiguous part of it.

Both sides are put through :func:`ledger.gate.normalize.normalise_quote` first, so typographic
quotes, dashes and whitespace do not matter while case, digits and wording do.
"""

from __future__ import annotations

from functools import lru_cache

from ledger.gate.anchors.reading import SPAN_CACHE_SIZE
from ledger.gate.model import CheckResult, Outcome
from ledger.gate.normalize import normalise_quote

CHECK = "quote"
_CONTEXT = 24


def check_quote(quote: str, span_text: str, span_id: str) -> CheckResult:
    """Check ``quote`` against ``span_text``.

    Pass ``quote_exact`` when the normalised quote equals the normalised span, pass
    ``quote_contiguous`` when it is a contiguous substring of it; fail ``quote_empty`` for an
    empty quote and ``quote_mismatch`` otherwise, with the closest differing point in ``detail``.
    """
    wanted = normalise_quote(quote)
    text = _normalised_span(span_text)
    if not wanted:
        return CheckResult(CHECK, Outcome.FAIL, "quote_empty", "the quote is empty", span_id)
    if wanted == text:
        return _quoted(span_id, None, None)
    at = text.find(wanted)
    if at >= 0:
        return _quoted(span_id, at, at + len(wanted))
    return CheckResult(CHECK, Outcome.FAIL, "quote_mismatch", _mismatch(wanted, text), span_id)


@lru_cache(maxsize=SPAN_CACHE_SIZE)
def _quoted(span_id: str, start: int | None, end: int | None) -> CheckResult:
    """The passing result for a quote that is the whole span (no ``start``) or its text
    ``[start:end]``: it depends on those only, and results are immutable, so each is built
    once (a span is quoted by claim after claim)."""
    if start is None:
        return CheckResult(
            CHECK, Outcome.PASS, "quote_exact", "the quote is the whole span text", span_id
        )
    return CheckResult(
        CHECK,
        Outcome.PASS,
        "quote_contiguous",
        f"the quote is span text [{start}:{end}] (normalised)",
        span_id,
    )


@lru_cache(maxsize=SPAN_CACHE_SIZE)
def _normalised_span(text: str) -> str:
    """A span text in quote comparison form, cached: span texts recur across claims."""
    return normalise_quote(text)


def _mismatch(wanted: str, text: str) -> str:
    """Describe where the quote departs from the span alignment that agrees with it the longest."""
    best_start, best_length = 0, -1
    first = wanted[0]
    start = text.find(first)
    while start >= 0:
        length = _common_prefix(wanted, text, start)
        if length > best_length:
            best_start, best_length = start, length
        start = text.find(first, start + 1)
    if best_length <= 0:
        return f"the quote {_clip(wanted, 0)!r} does not occur in the span {_clip(text, 0)!r}"
    at = best_start + best_length
    return (
        f"the quote agrees with span text from offset {best_start} for {best_length} characters, "
        f"then has {_clip(wanted, best_length)!r} where the span has {_clip(text, at)!r}"
    )


def _common_prefix(wanted: str, text: str, start: int) -> int:
    """How many characters of ``wanted`` match ``text`` from ``start`` on."""
    length = 0
    limit = min(len(wanted), len(text) - start)
    while length < limit and wanted[length] == text[start + length]:
        length += 1
    return length


def _clip(text: str, at: int) -> str:
    """A short window of ``text`` from ``at``, marked when cut."""
    piece = text[at : at + _CONTEXT]
    if not piece:
        return "(end)"
    return piece + ("..." if at + _CONTEXT < len(text) else "")
