"""The anchors check: every number, date, identifier, URL and quoted string of a claim must
appear in the spans that support it.

Anchors are compared in a normal form, not as text:

- amounts (:mod:`ledger.gate.anchors.numbers`) by value, with scale words applied and separators
  removed, so ``$4.5 million`` = ``4,500,000 dollars`` = ``4.5m USD`` and ``1,496.5`` =
  ``1496.5``, but ``22%`` is not ``2.2%`` and a percent is never a plain number. The sign is not
  compared (direction is the polarity check's business). Currencies must agree when both sides
  name one. When one side has no scale word, the mantissas are compared, unless the span
  declares a scale (``in thousands``), which is then applied to it;
- dates by ISO key; a less precise claim date matches a more precise span date of the same
  period (``January 2024`` matches ``5 January 2024``, a year matches any date in it), a
  day without its year (``June 30``) matches that day in any year, and a full date matches a
  span that writes its day without a year and its year apart (``October 31,`` over ``2019``);
- identifiers (ISINs, letter-digit codes such as ``ABC-123`` or ``A320``, exchange tickers such as
  ``NYSE: IBM``, section references such as ``4.2.1(b)`` and ``§ 12``) upper-cased without spaces;
- URLs without scheme, ``www.`` and trailing slash, case-folded;
- quoted strings (three characters or more) by :func:`ledger.gate.normalize.normalise_quote`,
  case-folded.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from functools import lru_cache

from ledger.gate.anchors.numbers import FISCAL_CLAIM, Amount, close, fiscal_year
from ledger.gate.anchors.reading import Anchors, Reading, read_span, read_text
from ledger.gate.model import CheckResult, Outcome

CHECK = "anchors"
_MAX_LISTED = 12


def _amount_found(amount: Amount, found: list[tuple[Anchors, float | None]]) -> bool:
    """Whether a claim amount matches an amount of a span (``found``: each span's anchors and
    the scale it declares)."""
    for span_anchors, scale in found:
        for other in span_anchors.amounts:
            if amounts_match(amount, other, scale):
                return True
    return False


def _date_found(key: str, per_span: Sequence[Sequence[str]], fiscal: bool = False) -> bool:
    """Whether a claim date is a span date or a less precise form of one; a day of a month
    written without its year (``--06-30``) matches that day in any year; a full date matches
    a span that writes its day without a year and its year apart (a header ``October 31,``
    over a column ``2019``)."""
    if key.startswith("--"):
        return any(d.endswith(key[1:]) for dates in per_span for d in dates)
    for dates in per_span:
        for d in dates:
            if d.startswith(key) or (fiscal and len(key) == 4 and _closes(d, key)):
                return True
    if len(key) != 10:
        return False
    day, year = f"--{key[5:]}", key[:4]
    return any(day in dates and any(d[:4] == year for d in dates) for dates in per_span)


def _closes(date: str, year: str) -> bool:
    """Whether a span date closes the fiscal ``year``
    (:func:`ledger.gate.anchors.numbers.fiscal_year`: ``2020-01-03`` closes fiscal 2019); a
    day without its year closes none."""
    return date[:4].isdigit() and fiscal_year(date) == int(year)


def amounts_match(claim: Amount, span: Amount, span_scale: float | None) -> bool:
    """Whether a claimed amount is the same figure as an amount written in a span."""
    if claim.kind != span.kind:
        return False
    if claim.currency and span.currency and claim.currency != span.currency:
        return False
    if close(abs(claim.value), abs(span.value)):
        return True
    if span.scale is None and span_scale is not None:
        return close(abs(claim.value), abs(span.mantissa * span_scale))
    if claim.scale is None or span.scale is None:
        return close(abs(claim.mantissa), abs(span.mantissa))
    return False


@lru_cache(maxsize=256)
def _present(total: int) -> CheckResult:
    """The passing result for ``total`` anchors (results are immutable: each is built once)."""
    return CheckResult(
        CHECK, Outcome.PASS, "anchors_present", f"all {total} anchor(s) appear in the spans"
    )


def check_anchors(
    claim: str | Reading, evidence: Sequence[str], exempt: Collection[float] = ()
) -> CheckResult:
    """Check that every anchor of the claim appears in one of the ``evidence`` texts.

    ``exempt`` lists amount values the computation check owns (the claimed result of a
    computational claim); those amounts are not looked for. Pass ``anchors_present``, fail
    ``anchor_missing`` (detail lists each missing anchor and the figures the spans have), skip
    ``no_anchors`` when the claim has none.
    """
    anchors = (read_text(claim) if isinstance(claim, str) else claim).anchors
    amounts = (
        [a for a in anchors.amounts if not any(close(a.value, v) for v in exempt)]
        if exempt
        else anchors.amounts
    )
    total = anchors.count - len(anchors.amounts) + len(amounts)
    if total == 0:
        return CheckResult(CHECK, Outcome.SKIP, "no_anchors", "the claim has no anchors")
    spans = [read_span(text) for text in evidence]
    found = [(span.reading.anchors, span.reading.anchors.scale) for span in spans]
    missing: list[str] = []
    # Loops rather than any() over generators: a claim has one or two figures and dates.
    for amount in amounts:
        if not _amount_found(amount, found):
            missing.append(f"number {amount.text!r}")
    per_span = [span_anchors.dates for span_anchors, _ in found]
    fiscal = (
        bool(anchors.dates)
        and FISCAL_CLAIM.search(claim if isinstance(claim, str) else claim.text) is not None
    )
    for key in anchors.dates:
        if not _date_found(key, per_span, fiscal):
            missing.append(f"date {key!r}")
    if anchors.identifiers:
        flat = "".join(span.identifier_key for span in spans)
        missing += [f"identifier {key!r}" for key in anchors.identifiers if key not in flat]
    if anchors.urls:
        url_text = " ".join(u for span_anchors, _ in found for u in span_anchors.urls)
        missing += [f"url {key!r}" for key in anchors.urls if key not in url_text]
    if anchors.quoted:
        quoted_text = " ".join(span.quoted_key for span in spans)
        missing += [f"quoted {key!r}" for key in anchors.quoted if key not in quoted_text]
    if not missing:
        return _present(total)
    have = [a.text for span_anchors, _ in found for a in span_anchors.amounts][:_MAX_LISTED]
    have_dates = [key for dates in per_span for key in dates][:_MAX_LISTED]
    return CheckResult(
        CHECK,
        Outcome.FAIL,
        "anchor_missing",
        f"missing from the spans: {', '.join(missing)}; the spans have numbers {have} "
        f"and dates {have_dates}",
    )


def anchor_unaligned(missing: CheckResult) -> CheckResult:
    """Skip ``anchor_unaligned`` for an ``anchor_missing`` result that is not established as a
    contradiction: the claim does not align around the anchor (a factual claim with other
    words unaligned), or is computational (its words are not aligned). The claim is not
    verified."""
    return CheckResult(
        CHECK,
        Outcome.SKIP,
        "anchor_unaligned",
        f"{missing.detail}; the claim does not align around them, so no contradiction is "
        "established",
    )
