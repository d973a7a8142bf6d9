"""Re-attribution: rebinding a claim to a verified span of the sealed pool, and nothing else."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from ledger.attribution import MAX_ATTEMPTS, Bm25Ranker, Candidate, RepairAttempt, find_repair
from ledger.attribution import repair as repair_module
from ledger.errors import InvalidInput
from ledger.gate import Binding, ClaimDraft, GateConfig, Role, SpanFacts, Verdict, judge

CLAIM = "The museum opened in 1998."
CONFIG = GateConfig()


def span(
    span_id: str,
    text: str,
    *,
    exists: bool = True,
    in_pool: bool = True,
    in_force: bool = True,
    withdrawn: bool = False,
) -> SpanFacts:
    """Facts of a span; by default it exists, is in the pool and in force."""
    return SpanFacts(span_id, exists, in_pool, in_force, withdrawn, text)


def pool_of(*spans: SpanFacts) -> dict[str, SpanFacts]:
    """A pool keyed by span id."""
    return {s.span_id: s for s in spans}


GOOD = span("good", "The museum opened in 1998 in the old harbour warehouse.")
WRONG = span("wrong", "The harbour froze in the winter of 1947.")
NEAR = span("near", "The museum opened its doors to visitors.")


def misattributed(
    text: str = CLAIM, span_id: str = "wrong", role: Role = Role.PRIMARY, quote: str | None = None
) -> ClaimDraft:
    """A claim bound to one span."""
    return ClaimDraft(text, bindings=(Binding(span_id, role, quote),))


def test_rebinds_a_misattributed_claim_to_the_pool_span_the_gate_verifies() -> None:
    outcome = find_repair(misattributed(), 0, pool_of(WRONG, NEAR, GOOD), Bm25Ranker(), CONFIG)
    assert outcome.repaired
    assert outcome.new_binding == Binding("good", Role.PRIMARY, None)
    assert outcome.rank == 1
    assert outcome.score == outcome.attempts[-1].score
    assert outcome.attempts[-1] == RepairAttempt("good", 1, outcome.score, "verified")
    assert (outcome.ranker, outcome.ranker_version) == ("provledger-bm25", "1")


def test_never_proposes_a_span_outside_the_pool_even_when_it_would_score_higher() -> None:
    # The claim's own words, but not in the receipt's sealed pool (in_pool is False).
    outside = span("outside", CLAIM, in_pool=False)
    pool = pool_of(WRONG, NEAR, outside)
    everything = [Candidate(s.span_id, s.text) for s in pool.values()]
    assert Bm25Ranker().rank(CLAIM, everything, exclude={"wrong"})[0].span_id == "outside"
    outcome = find_repair(misattributed(), 0, pool, Bm25Ranker(), CONFIG)
    assert [a.span_id for a in outcome.attempts] == ["near"]
    assert not outcome.repaired
    assert outcome.new_binding is None


def test_repairs_only_with_a_pool_span_when_a_better_one_exists_elsewhere() -> None:
    registry_only = span("registry", "The museum opened in 1998.")
    pool = pool_of(WRONG, GOOD)
    outcome = find_repair(misattributed(), 0, pool, Bm25Ranker(), CONFIG)
    assert outcome.new_binding is not None
    assert outcome.new_binding.span_id == "good"
    assert registry_only.span_id not in {a.span_id for a in outcome.attempts}
    assert all(a.span_id in pool for a in outcome.attempts)


@pytest.mark.parametrize(
    "facts",
    [
        span("stale", CLAIM, in_force=False),
        span("gone", CLAIM, withdrawn=True),
        span("ghost", CLAIM, exists=False),
    ],
    ids=["not-in-force", "withdrawn", "missing"],
)
def test_skips_pool_spans_that_cannot_be_cited(facts: SpanFacts) -> None:
    outcome = find_repair(misattributed(), 0, pool_of(WRONG, facts), Bm25Ranker(), CONFIG)
    assert outcome.attempts == ()
    assert not outcome.repaired


def test_never_edits_the_claim_text_or_its_other_bindings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    judged: list[ClaimDraft] = []

    def recording_judge(
        claim: ClaimDraft, spans: Mapping[str, SpanFacts], config: GateConfig
    ) -> Verdict:
        judged.append(claim)
        return judge(claim, spans, config)

    monkeypatch.setattr(repair_module, "judge", recording_judge)
    context = span("ctx", "Visitors came from the harbour.")
    claim = ClaimDraft(
        CLAIM, bindings=(Binding("ctx", Role.CONTEXT), Binding("wrong")), client_ref="c-1"
    )
    outcome = find_repair(claim, 1, pool_of(context, WRONG, NEAR, GOOD), Bm25Ranker(), CONFIG)
    assert outcome.repaired
    assert claim.text == CLAIM
    assert judged
    for tried, attempt in zip(judged, outcome.attempts, strict=True):
        assert (tried.text, tried.type, tried.material, tried.client_ref) == (
            claim.text,
            claim.type,
            claim.material,
            claim.client_ref,
        )
        assert tried.bindings[0] == Binding("ctx", Role.CONTEXT)
        assert tried.bindings[1].span_id == attempt.span_id


def test_excludes_every_span_the_claim_already_binds() -> None:
    claim = ClaimDraft(CLAIM, bindings=(Binding("good", Role.CONTEXT), Binding("wrong")))
    outcome = find_repair(claim, 1, pool_of(WRONG, NEAR, GOOD), Bm25Ranker(), CONFIG)
    assert [a.span_id for a in outcome.attempts] == ["near"]


def test_stops_after_max_attempts() -> None:
    distractors = [span(f"d{i}", f"The museum shop sold {i} postcards.") for i in range(6)]
    pool = pool_of(WRONG, *distractors)
    limited = find_repair(misattributed(), 0, pool, Bm25Ranker(), CONFIG, 2)
    assert [a.rank for a in limited.attempts] == [1, 2]
    default = find_repair(misattributed(), 0, pool, Bm25Ranker(), CONFIG)
    assert len(default.attempts) == MAX_ATTEMPTS
    assert not default.repaired


def test_records_attempts_in_rank_order_with_the_gate_status_of_each() -> None:
    pool = pool_of(
        WRONG,
        span("n1", "The museum opened its doors."),
        span("n2", "The museum opened."),
        span("n3", "The museum opened its doors in spring to many visitors."),
    )
    outcome = find_repair(misattributed(), 0, pool, Bm25Ranker(), CONFIG)
    ranks = [a.rank for a in outcome.attempts]
    scores = [a.score for a in outcome.attempts]
    assert ranks == [1, 2, 3]
    assert scores == sorted(scores, reverse=True)
    assert all(a.status in {"verified", "unverified", "rejected"} for a in outcome.attempts)
    assert all(a.status != "verified" for a in outcome.attempts)
    assert (outcome.repaired, outcome.rank, outcome.score) == (False, None, None)


def test_stops_at_the_first_verified_candidate() -> None:
    also_good = span("good2", "In 1998 the museum opened.")
    outcome = find_repair(misattributed(), 0, pool_of(WRONG, GOOD, also_good), Bm25Ranker(), CONFIG)
    assert len(outcome.attempts) == 1
    assert outcome.attempts[0].status == "verified"


def test_keeps_the_role_and_drops_a_quote_the_new_span_does_not_contain() -> None:
    claim = misattributed(role=Role.SECONDARY, quote="froze in the winter")
    outcome = find_repair(claim, 0, pool_of(WRONG, GOOD), Bm25Ranker(), CONFIG)
    assert outcome.new_binding == Binding("good", Role.SECONDARY, None)


def test_keeps_a_quote_the_new_span_contains() -> None:
    claim = misattributed(quote="museum opened in 1998")
    outcome = find_repair(claim, 0, pool_of(WRONG, GOOD), Bm25Ranker(), CONFIG)
    assert outcome.new_binding == Binding("good", Role.PRIMARY, "museum opened in 1998")


def test_rejects_a_binding_index_outside_the_claim() -> None:
    with pytest.raises(InvalidInput, match=r"binding_index must be in 0\.\.0; got 1") as caught:
        find_repair(misattributed(), 1, pool_of(WRONG, GOOD), Bm25Ranker(), CONFIG)
    assert (caught.value.field, caught.value.rule) == ("binding_index", "in_range")


def test_rejects_max_attempts_below_one() -> None:
    with pytest.raises(InvalidInput, match="max_attempts must be at least 1; got 0") as caught:
        find_repair(misattributed(), 0, pool_of(WRONG, GOOD), Bm25Ranker(), CONFIG, 0)
    assert caught.value.field == "max_attempts"


def test_rejects_a_pool_entry_filed_under_another_span_id() -> None:
    with pytest.raises(InvalidInput, match="pool entry 'alias' holds the facts of span 'good'"):
        find_repair(misattributed(), 0, {"wrong": WRONG, "alias": GOOD}, Bm25Ranker(), CONFIG)
