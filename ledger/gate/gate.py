"""The commit gate: run every check on one claim and derive its status.

Order (:data:`ORDER`): existence and version per binding, quote per binding that has a quote,
then anchors, polarity, computation and support over the support spans (bindings in a
``primary_support`` or ``secondary_support`` role; a table cell contributes its text and its
envelope), and coverage last.

A claim that is not computational is judged by alignment (:mod:`ledger.gate.factual`): each
clause is laid over one support span, and polarity, anchor roles and support are read at the
aligned positions. A computational claim names figures of several cells, in any order, so its
polarity and support are read over the spans as a whole (:mod:`ledger.gate.polarity.window`,
:mod:`ledger.gate.support.recall`) and its result is recomputed.

Status:

- ``rejected`` when any check in :data:`HARD_CHECKS` fails: the citation is broken or the claim
  contradicts its spans;
- otherwise ``unverified`` when support fails or is skipped, a computational claim's result could
  not be recomputed (computation skipped), or coverage fails (a material claim with no support
  binding) or is skipped (an unbound claim that is not material);
- otherwise ``verified``.
"""

from __future__ import annotations

from collections.abc import Mapping

from ledger.gate.anchors.check import anchor_unaligned, check_anchors
from ledger.gate.anchors.reading import Reading, read_text
from ledger.gate.citation.bindings import check_existence, check_version
from ledger.gate.citation.quote import check_quote
from ledger.gate.computation.check import check_computation
from ledger.gate.computation.scope import period_count
from ledger.gate.factual import align_claim
from ledger.gate.model import (
    SUPPORT_ROLES,
    CheckResult,
    ClaimDraft,
    ClaimType,
    GateConfig,
    Outcome,
    SpanFacts,
    Status,
    Verdict,
)
from ledger.gate.normalize import normalise_quote
from ledger.gate.polarity.window import check_polarity
from ledger.gate.support.lines import check_line_item_support, check_line_named
from ledger.gate.support.recall import check_support

ORDER = (
    "existence",
    "version",
    "quote",
    "anchors",
    "polarity",
    "computation",
    "support",
    "coverage",
)
"""The checks in the order :func:`judge` runs and reports them."""

HARD_CHECKS = frozenset({"existence", "version", "quote", "anchors", "polarity", "computation"})
"""Checks whose failure rejects a claim; a failure of any other check leaves it unverified."""

UNESTABLISHED = frozenset({"mismatch_unaligned", "anchor_unaligned"})
"""Reasons a check skips where it found a disagreement it cannot establish as a contradiction
(the claim does not align around it): the claim is not rejected, and not verified either."""

DEFAULT_CONFIG = GateConfig()
"""The configuration :func:`judge` uses when none is given."""

_BOUND = CheckResult("coverage", Outcome.PASS, "bound", "the claim cites a support span")
"""The coverage result of every claim with a support span (results are immutable)."""


# Over 60 lines on purpose: the one place that lists every check in the order of the
# verdict, reading the claim once and sharing that reading between the checks.
def judge(
    claim: ClaimDraft, spans: Mapping[str, SpanFacts], config: GateConfig = DEFAULT_CONFIG
) -> Verdict:
    """Run every check on ``claim`` with the facts the caller resolved about its ``spans``.

    ``spans`` maps span ids to their facts; a bound span id missing from it counts as unknown.
    """
    checks: list[CheckResult] = []
    quotes: list[CheckResult] = []
    support: list[SpanFacts] = []
    # One pass over the bindings: existence and version of each, then the quote checks.
    for binding in claim.bindings:
        span_id = binding.span_id
        facts = spans.get(span_id)
        checks.append(check_existence(span_id, facts))
        checks.append(check_version(span_id, facts))
        known = facts is not None and facts.exists
        if binding.quote is not None:
            text = facts.text if facts is not None and known else ""
            quotes.append(check_quote(binding.quote, text, span_id))
        if known and binding.role in SUPPORT_ROLES and facts is not None:
            support.append(facts)
    checks += quotes
    evidence = [facts.evidence_text for facts in support]
    if evidence:
        # The claim is read once (tokens, dates, amounts, anchors) and shared by the checks; a
        # claim the alignment reads needs no tokens from it.
        computational = claim.type is ClaimType.COMPUTATIONAL
        reading = read_text(claim.text, words=computational)
        computation, claimed = check_computation(
            reading, claim.type, support, config.computation_tolerance
        )
        exempt = [claimed.value] if claimed is not None else []
        exempt += period_count(reading, claim.type, support)
        anchors = check_anchors(reading, evidence, exempt)
        if computational:
            anchors, polarity, support_result = _by_window(reading, evidence, anchors, config)
        else:
            anchors, polarity, support_result = _by_alignment(
                claim.text, support, evidence, anchors, config
            )
        checks.append(anchors)
        checks.append(polarity)
        checks.append(computation)
        if support_result.reason == "no_content_words":
            line_item = (
                check_line_item_support(reading, evidence)
                if claim.type is ClaimType.COMPUTATIONAL
                else None
            )
            support_result = line_item or _verbatim_support(claim, spans, checks) or support_result
        if computational and support_result.outcome is Outcome.PASS:
            cited = [(facts.envelope, facts.text) for facts in support if facts.envelope]
            support_result = check_line_named(reading, cited) or support_result
        checks.append(support_result)
    else:
        for check in ("anchors", "polarity", "computation", "support"):
            checks.append(
                CheckResult(check, Outcome.SKIP, "no_evidence", "the claim has no support span")
            )
    checks.append(_coverage(claim, has_support=bool(evidence)))
    return Verdict(_status(checks), tuple(checks))


def _by_window(
    reading: Reading, evidence: list[str], anchors: CheckResult, config: GateConfig
) -> tuple[CheckResult, CheckResult, CheckResult]:
    """The anchors, polarity and support results of a computational claim: its words are not
    aligned, so an anchor its spans lack is not established as a contradiction
    (``anchor_unaligned``), its polarity is read over a window and its support is recall."""
    if anchors.reason == "anchor_missing":
        anchors = anchor_unaligned(anchors)
    polarity = check_polarity(reading, evidence)
    support = check_support(reading, evidence, config.support_threshold, computational=True)
    return anchors, polarity, support


def _by_alignment(
    text: str,
    support: list[SpanFacts],
    evidence: list[str],
    anchors: CheckResult,
    config: GateConfig,
) -> tuple[CheckResult, CheckResult, CheckResult]:
    """The anchors, polarity and support results of a claim judged by alignment
    (:func:`ledger.gate.factual.align_claim`): an anchor of the same role with another value
    where the claim aligns, or an anchor the spans lack where all else of the claim aligns, is
    a contradiction (``anchor_misaligned``, ``anchor_missing``); one the spans lack where the
    claim does not align is not (``anchor_unaligned``)."""
    texts = [facts.text for facts in support if not facts.envelope]
    cells = (
        [text for facts, text in zip(support, evidence, strict=True) if facts.envelope]
        if len(texts) < len(support)
        else []
    )
    aligned = align_claim(text, texts, config.support_threshold, cells)
    if aligned.anchor is not None and anchors.outcome is not Outcome.FAIL:
        anchors = aligned.anchor
    elif anchors.reason == "anchor_missing" and not aligned.whole:
        anchors = anchor_unaligned(anchors)
    support_result = aligned.support or CheckResult(
        "support", Outcome.SKIP, "no_content_words", "the claim has no content words"
    )
    return anchors, aligned.polarity, support_result


def _verbatim_support(
    claim: ClaimDraft, spans: Mapping[str, SpanFacts], checks: list[CheckResult]
) -> CheckResult | None:
    """Pass ``support_verbatim`` when a claim without content words (``Apr 23, 2014 - May 23,
    2014``) is, word for word, the text of a support span whose quote check passed."""
    quoted = {c.span_id for c in checks if c.check == "quote" and c.outcome is Outcome.PASS}
    wanted = normalise_quote(claim.text)
    for binding in claim.bindings:
        facts = spans.get(binding.span_id)
        if (
            binding.role in SUPPORT_ROLES
            and binding.span_id in quoted
            and facts is not None
            and normalise_quote(facts.text) == wanted
        ):
            return CheckResult(
                "support",
                Outcome.PASS,
                "support_verbatim",
                f"the claim is the text of span {binding.span_id!r}, quoted from it",
            )
    return None


def _coverage(claim: ClaimDraft, *, has_support: bool) -> CheckResult:
    """Pass ``bound``; fail ``unsupported`` (material, no support span); skip ``not_material``."""
    if has_support:
        return _BOUND
    if claim.material:
        what = "cites no span" if not claim.bindings else "cites no resolvable support span"
        return CheckResult(
            "coverage", Outcome.FAIL, "unsupported", f"the claim is material and {what}"
        )
    return CheckResult(
        "coverage", Outcome.SKIP, "not_material", "the claim is not material and cites no span"
    )


def _status(checks: list[CheckResult]) -> Status:
    """Derive the status from the check results as the module docstring says."""
    status = Status.VERIFIED
    for check in checks:
        if check.outcome is Outcome.PASS:
            continue
        if check.outcome is Outcome.FAIL and check.check in HARD_CHECKS:
            return Status.REJECTED
        if (
            check.check in ("support", "coverage")
            or (check.check == "computation" and check.reason != "not_computational")
            or check.reason in UNESTABLISHED
        ):
            status = Status.UNVERIFIED
    return status
