"""The anchors check: every number, date, identifier, URL and quoted string of a claim must
appear in the spans that support it.

Anchors are compared in a normal form, not as text:

- amounts (:mod:`ledger.gate._numbers`) by value, with scale words applied and separators
  removed, so ``$4.5 million`` = ``4,500,000 dollars`` = ``4.5m USD`` and ``1,496.5`` =
  ``1496.5``, but ``22%`` is not ``2.2%`` and a percent is never a plain number. The sign is not
  compared (direction is the polarity check's business). Currencies must agree when both sides
  name one. When one side has no scale word, the mantissas are compared, unless the span
  declares a scale (``in thousands``), which is then applied to it;
- dates by ISO key; a less precise claim date matches a more precise span date of the same
  period (``January 2024`` matches ``5 January 2024``, a year matches any date in it);
- identifiers (ISINs, letter-digit codes such as ``ABC-123`` or ``A320``, exchange tickers such as
  ``NYSE: IBM``, section references such as ``4.2.1(b)`` and ``§ 12``) upper-cased without spaces;
- URLs without scheme, ``www.`` and trailing slash, case-folded;
- quoted strings (three characters or more) by :func:`ledger.gate.normalize.normalise_quote`,
  case-folded.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import lru_cache

from ledger.gate._numbers import Amount, close, context_scale, dates, numbers
from ledger.gate.model import CheckResult, Outcome
from ledger.gate.normalize import normalise_quote

CHECK = "anchors"

_URL = re.compile(r"\b(?:https?://|www\.)[^\s<>\"')\]]+", re.IGNORECASE)
_QUOTED = re.compile(r"\"([^\"]{3,200})\"")
_IDENTIFIERS = (
    re.compile(r"\b[A-Z]{2}[A-Z0-9]{9}\d\b"),  # ISIN (ISO 6166)
    re.compile(r"\b(?:NYSE|NASDAQ|Nasdaq|LSE|TSX|ASX|HKEX|AMEX)\s*:\s*[A-Z][A-Z.]{0,5}\b"),
    re.compile(r"§+\s*\d+(?:\.\d+)*(?:\([a-z0-9]+\))*"),
    re.compile(r"\b\d+(?:\.\d+){2,}(?:\([a-z0-9]+\))*|\b\d+(?:\.\d+)+\([a-z0-9]+\)"),
    re.compile(
        r"\b(?=[A-Za-z]*\d)(?=\d*[A-Za-z])[A-Za-z0-9]*[A-Z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*\b"
    ),
    re.compile(r"\b[A-Z]{2,}-\d+[A-Za-z0-9-]*\b"),
)
_SPACES = re.compile(r"\s+")
_MAX_LISTED = 12


@dataclass(frozen=True, slots=True)
class _Anchors:
    """The anchors of one text, in normal form."""

    amounts: tuple[Amount, ...]
    dates: tuple[str, ...]
    identifiers: tuple[str, ...]
    urls: tuple[str, ...]
    quoted: tuple[str, ...]
    scale: float | None


def _identifier_key(text: str) -> str:
    return _SPACES.sub("", text).upper()


def _url_key(text: str) -> str:
    key = text.lower().rstrip(".,;:/")
    key = re.sub(r"^https?://", "", key)
    return key.removeprefix("www.")


def extract_anchors(text: str) -> _Anchors:
    """Find the anchors of ``text``; identifiers, URLs and quotes mask the numbers inside them."""
    masked: list[tuple[int, int]] = []
    urls = []
    for match in _URL.finditer(text):
        urls.append(_url_key(match.group(0)))
        masked.append(match.span())
    identifiers = []
    for pattern in _IDENTIFIERS:
        for match in pattern.finditer(text):
            if any(match.start() < e and s < match.end() for s, e in masked):
                continue
            identifiers.append(_identifier_key(match.group(0)))
            masked.append(match.span())
    quoted = [
        normalise_quote(m.group(1)).casefold() for m in _QUOTED.finditer(normalise_quote(text))
    ]
    return _Anchors(
        amounts=tuple(numbers(text, masked)),
        dates=tuple(d.key for d in dates(text)),
        identifiers=tuple(identifiers),
        urls=tuple(urls),
        quoted=tuple(quoted),
        scale=context_scale(text),
    )


span_anchors = lru_cache(maxsize=8192)(extract_anchors)
""":func:`extract_anchors` cached by text, for spans: span texts recur across claims."""


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


def check_anchors(
    claim_text: str, evidence: Sequence[str], exempt: Collection[float] = ()
) -> CheckResult:
    """Check that every anchor of ``claim_text`` appears in one of the ``evidence`` texts.

    ``exempt`` lists amount values the computation check owns (the claimed result of a
    computational claim); those amounts are not looked for. Pass ``anchors_present``, fail
    ``anchor_missing`` (detail lists each missing anchor and the figures the spans have), skip
    ``no_anchors`` when the claim has none.
    """
    claim = extract_anchors(claim_text)
    amounts = [a for a in claim.amounts if not any(close(a.value, v) for v in exempt)]
    total = (
        len(amounts)
        + len(claim.dates)
        + len(claim.identifiers)
        + len(claim.urls)
        + len(claim.quoted)
    )
    if total == 0:
        return CheckResult(CHECK, Outcome.SKIP, "no_anchors", "the claim has no anchors")
    found = [(anchors, anchors.scale) for anchors in map(span_anchors, evidence)]
    missing: list[str] = []
    for amount in amounts:
        if not any(
            amounts_match(amount, other, scale)
            for anchors, scale in found
            for other in anchors.amounts
        ):
            missing.append(f"number {amount.text!r}")
    span_dates = [key for anchors, _ in found for key in anchors.dates]
    missing += [
        f"date {key!r}" for key in claim.dates if not any(d.startswith(key) for d in span_dates)
    ]
    flat = _identifier_key(" ".join(evidence))
    missing += [f"identifier {key!r}" for key in claim.identifiers if key not in flat]
    url_text = " ".join(u for anchors, _ in found for u in anchors.urls)
    missing += [f"url {key!r}" for key in claim.urls if key not in url_text]
    quoted_text = normalise_quote(" ".join(evidence)).casefold()
    missing += [f"quoted {key!r}" for key in claim.quoted if key not in quoted_text]
    if not missing:
        return CheckResult(
            CHECK, Outcome.PASS, "anchors_present", f"all {total} anchor(s) appear in the spans"
        )
    have = [a.text for anchors, _ in found for a in anchors.amounts][:_MAX_LISTED]
    have_dates = span_dates[:_MAX_LISTED]
    return CheckResult(
        CHECK,
        Outcome.FAIL,
        "anchor_missing",
        f"missing from the spans: {', '.join(missing)}; the spans have numbers {have} "
        f"and dates {have_dates}",
    )
