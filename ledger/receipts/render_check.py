"""Render integrity: every citation marker in a rendered answer resolves in its receipt.

Markers are ``[sp_<24 hex digits>]``: a span id in square brackets. A marker resolves when a
committed (not rejected) claim of the same receipt binds that span. Numeric markers such as
``[3]`` are recognised and always fail: an index does not name a span, and index drift is the
failure this check exists to catch.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ledger.gate.model import CheckResult, Outcome

SPAN_MARKER = re.compile(r"\[(sp_[0-9a-f]{24})\]")
NUMERIC_MARKER = re.compile(r"\[(\d{1,4})\]")


def check_render(rendered_answer: str, committed_span_ids: Iterable[str]) -> CheckResult:
    """Check each marker of ``rendered_answer`` against the spans committed claims bind."""
    bound = set(committed_span_ids)
    numeric = NUMERIC_MARKER.findall(rendered_answer)
    if numeric:
        shown = ", ".join(f"[{n}]" for n in numeric[:5])
        return CheckResult(
            "render",
            Outcome.FAIL,
            "marker_not_a_span",
            f"numeric markers {shown} do not name a span; cite as [sp_...]",
        )
    markers = SPAN_MARKER.findall(rendered_answer)
    if not markers:
        return CheckResult("render", Outcome.SKIP, "no_markers", "the answer has no markers")
    unbound = sorted({m for m in markers if m not in bound})
    if unbound:
        return CheckResult(
            "render",
            Outcome.FAIL,
            "marker_unbound",
            f"markers not bound by a committed claim of this receipt: {', '.join(unbound)}",
        )
    return CheckResult(
        "render", Outcome.PASS, "markers_resolved", f"{len(markers)} markers, all resolved"
    )
