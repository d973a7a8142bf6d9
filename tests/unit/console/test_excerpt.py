"""What a citation's excerpt marks, and that its pieces always rebuild the excerpt."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from api.console.excerpt import pieces

EXCERPT = "Before it. Damaged goods are returned within 30 days of delivery. After it."
SPAN = (11, 66)


def _marked(found: list) -> list[str]:  # type: ignore[type-arg]
    return [p.text for p in found if p.kind == "mark"]


def test_marks_the_quotation_where_it_occurs_in_the_span() -> None:
    found = pieces(EXCERPT, SPAN, "anything", "returned  within 30\ndays")
    assert _marked(found) == ["returned within 30 days"]


def test_marks_the_words_the_claim_shares_joining_neighbours() -> None:
    found = pieces(EXCERPT, SPAN, "Damaged goods come back within 30 days.", None)
    assert _marked(found) == ["Damaged goods", "within 30 days"]


def test_a_quotation_not_in_the_span_falls_back_to_shared_words() -> None:
    found = pieces(EXCERPT, SPAN, "delivery", "not there")
    assert _marked(found) == ["delivery"]


def test_marks_nothing_inside_a_span_that_shares_no_word_with_the_claim() -> None:
    found = pieces(EXCERPT, SPAN, "The weather was fine.", None)
    assert _marked(found) == []
    assert [p.kind for p in found] == ["before", "span", "after"]


def test_context_around_the_span_is_never_marked() -> None:
    found = pieces(EXCERPT, SPAN, "Before it after it", None)
    assert _marked(found) == []


@given(
    st.text(max_size=80),
    st.integers(-5, 90),
    st.integers(-5, 90),
    st.text(max_size=40),
    st.one_of(st.none(), st.text(max_size=20)),
)
def test_pieces_always_rebuild_the_excerpt(
    excerpt: str, low: int, high: int, claim: str, quote: str | None
) -> None:
    found = pieces(excerpt, (low, high), claim, quote)
    assert "".join(p.text for p in found) == excerpt
    assert all(p.text for p in found)
