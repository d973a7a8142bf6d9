"""BM25 ranking of candidate spans: order, tie-breaks, exclusions and dropped zero scores."""

from __future__ import annotations

import pytest

from ledger.attribution import Bm25Ranker, Candidate
from ledger.errors import InvalidInput

POOL = [
    Candidate("a", "The museum opened in 1998 in the old harbour warehouse."),
    Candidate("b", "Revenue rose sharply after the museum added a second wing."),
    Candidate("c", "The harbour froze in the winter of 1947."),
    Candidate("d", "Nothing related at all here."),
]


def test_ranks_the_span_sharing_the_rarest_words_first() -> None:
    ranked = Bm25Ranker().rank("The museum opened in 1998.", POOL)
    assert [r.span_id for r in ranked] == ["a", "b"]
    assert [r.rank for r in ranked] == [1, 2]
    assert ranked[0].score > ranked[1].score > 0


def test_drops_candidates_that_share_no_term_with_the_query() -> None:
    ranked = Bm25Ranker().rank("harbour", POOL)
    assert {r.span_id for r in ranked} == {"a", "c"}


def test_breaks_ties_by_span_id() -> None:
    twins = [Candidate("z", "Same words here."), Candidate("m", "Same words here.")]
    ranked = Bm25Ranker().rank("same words", twins)
    assert [(r.span_id, r.rank) for r in ranked] == [("m", 1), ("z", 2)]
    assert ranked[0].score == ranked[1].score


def test_ranking_does_not_depend_on_candidate_order() -> None:
    forward = Bm25Ranker().rank("museum harbour 1998", POOL)
    backward = Bm25Ranker().rank("museum harbour 1998", list(reversed(POOL)))
    assert forward == backward


def test_leaves_out_excluded_spans_without_changing_the_others_scores() -> None:
    ranker = Bm25Ranker()
    full = {r.span_id: r.score for r in ranker.rank("museum harbour", POOL)}
    ranked = ranker.rank("museum harbour", POOL, exclude={"a"})
    assert sorted(r.span_id for r in ranked) == ["b", "c"]
    assert [r.rank for r in ranked] == [1, 2]
    assert all(r.score == full[r.span_id] for r in ranked)


def test_reads_the_envelope_of_a_table_cell() -> None:
    cells = [
        Candidate("cell1", "41.2", envelope="Table 3, row Operating margin, column 2021"),
        Candidate("cell2", "17.0", envelope="Table 3, row Headcount, column 2021"),
    ]
    ranked = Bm25Ranker().rank("operating margin in 2021", cells)
    assert ranked[0].span_id == "cell1"


def test_matches_inflected_forms_and_ignores_stop_words_and_case() -> None:
    ranked = Bm25Ranker().rank("The Board APPROVES", [Candidate("x", "boards approved it")])
    assert [r.span_id for r in ranked] == ["x"]
    assert Bm25Ranker().rank("the of and", [Candidate("x", "the of and")]) == []


def test_returns_nothing_for_an_empty_pool() -> None:
    assert Bm25Ranker().rank("museum", []) == []


def test_prefers_the_shorter_span_for_the_same_match() -> None:
    pool = [
        Candidate("long", "The museum is large and has many rooms, halls, gardens and cafes."),
        Candidate("short", "The museum is large."),
    ]
    ranked = Bm25Ranker().rank("museum", pool)
    assert [r.span_id for r in ranked] == ["short", "long"]


def test_names_itself_and_its_algorithm_version() -> None:
    ranker = Bm25Ranker()
    assert (ranker.name, ranker.version) == ("provledger-bm25", "1")


def test_rejects_duplicate_span_ids() -> None:
    with pytest.raises(InvalidInput, match="span 'a' is a candidate more than once") as caught:
        Bm25Ranker().rank("museum", [POOL[0], POOL[0]])
    assert (caught.value.field, caught.value.rule) == ("candidates", "unique_span_ids")


@pytest.mark.parametrize(
    ("k1", "b", "field"), [(-0.1, 0.75, "k1"), (1.5, 1.5, "b"), (float("nan"), 0.75, "k1")]
)
def test_rejects_parameters_outside_their_range(k1: float, b: float, field: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        Bm25Ranker(k1=k1, b=b)
    assert caught.value.field == field
