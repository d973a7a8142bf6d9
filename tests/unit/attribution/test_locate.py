"""After-the-fact location: markers, sentence offsets, recall, evidence and the two thresholds."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger.attribution import (
    DEFAULT_CONFIDENCE,
    DEFAULT_THRESHOLD,
    Candidate,
    Chunk,
    Located,
    locate,
)
from ledger.attribution._markers import find_markers, strip_markers
from ledger.errors import InvalidInput

CHUNKS = {
    "1": Chunk(
        "doc-a#0",
        (
            Candidate("a1", "The bridge was completed in 1932 after six years of work."),
            Candidate("a2", "Its main span is 503 metres long."),
        ),
    ),
    "2": Chunk(
        "doc-b#4",
        (
            Candidate("b1", "The harbour tunnel opened in 1992."),
            Candidate("b2", "Tolls pay for the upkeep of the bridge and the tunnel."),
            Candidate("b3", "Ferries crossed the harbour until then."),
        ),
    ),
}


def test_locates_each_cited_sentence_on_its_best_span() -> None:
    answer = "The bridge was completed in 1932 [1]. The tunnel opened in 1992 [2]."
    found = locate(answer, CHUNKS)
    assert [(f.span_id, f.markers) for f in found] == [("a1", ("1",)), ("b1", ("2",))]
    assert found[0].score == 1.0


def test_strips_markers_from_the_sentence() -> None:
    found = locate("The main span is 503 metres long [1].", CHUNKS)
    # Five terms only a2 of the two spans holds: odds of 2**5 to 1.
    assert found == [
        Located(
            "The main span is 503 metres long.", 0, 37, ("1",), "a2", 1.0, pytest.approx(32 / 33)
        ),
    ]


def test_offsets_of_located_sentences_point_into_the_answer() -> None:
    answer = "Intro without a source.  The tunnel opened in 1992.[2] Its span is 503 metres [1][2]."
    found = locate(answer, CHUNKS)
    assert len(found) == 3
    previous_end = 0
    for located in found:
        piece = answer[located.start : located.end]
        assert previous_end <= located.start < located.end <= len(answer)
        assert located.sentence.rstrip(".") in piece.replace("[2]", "").replace("[1]", "")
        previous_end = located.end
    assert answer[found[1].start : found[1].end] == "The tunnel opened in 1992.[2]"


def test_gives_a_marker_after_a_sentence_end_to_the_sentence_before_it() -> None:
    found = locate("The tunnel opened in 1992. [2] The bridge was completed in 1932.", CHUNKS)
    assert [(f.markers, f.span_id) for f in found] == [(("2",), "b1"), ((), None)]


def test_parses_adjacent_markers() -> None:
    found = locate("Tolls pay for the tunnel [1][2].", CHUNKS)
    assert found[0].markers == ("1", "2")
    assert found[0].span_id == "b2"


def test_parses_comma_separated_markers() -> None:
    found = locate("Tolls pay for the tunnel [1, 2].", CHUNKS)
    assert found[0].markers == ("1", "2")
    assert found[0].span_id == "b2"


def test_ignores_marker_keys_that_name_no_chunk() -> None:
    found = locate("The tunnel opened in 1992 [7][2, 9].", CHUNKS)
    assert found[0].markers == ("2",)
    assert found[0].span_id == "b1"
    only_unknown = locate("The tunnel opened in 1992 [7].", CHUNKS)
    assert only_unknown[0].markers == ()
    assert (only_unknown[0].span_id, only_unknown[0].score) == (None, None)


def test_reads_only_the_chunks_a_sentence_cites() -> None:
    found = locate("The harbour tunnel opened in 1992 [1].", CHUNKS)
    assert found[0].span_id != "b1"


def test_returns_no_span_below_the_threshold_but_keeps_the_best_score() -> None:
    found = locate("The bridge was painted green by volunteers in spring [1].", CHUNKS)
    assert found[0].span_id is None
    assert found[0].score is not None
    assert found[0].score < DEFAULT_THRESHOLD


def test_locates_at_exactly_the_threshold() -> None:
    answer = "The bridge took six years to paint green [1]."
    found = locate(answer, CHUNKS, threshold=0.5)
    assert (found[0].span_id, found[0].score) == ("a1", 0.5)
    assert locate(answer, CHUNKS, threshold=0.51)[0].span_id is None


def test_gives_a_sentence_without_markers_no_span_and_no_score() -> None:
    found = locate("The bridge was completed in 1932.", CHUNKS)
    assert (found[0].markers, found[0].span_id, found[0].score, found[0].confidence) == (
        (),
        None,
        None,
        None,
    )


TIED = {
    "1": Chunk("x", (Candidate("long", "Bridge tolls rose, and so did rents."),)),
    "2": Chunk("y", (Candidate("short", "Bridge tolls rose."),)),
    "3": Chunk("z", (Candidate("twin", "Bridge tolls rose."),)),
}


def test_returns_no_span_when_two_different_spans_explain_the_sentence_equally() -> None:
    found = locate("Bridge tolls rose [1][2].", TIED)
    assert (found[0].span_id, found[0].score, found[0].confidence) == (None, 1.0, 0.5)


def test_names_the_first_cited_of_spans_with_the_same_terms() -> None:
    found = locate("Bridge tolls rose [3][2].", TIED)
    assert (found[0].span_id, found[0].confidence) == ("twin", 1.0)
    assert locate("Bridge tolls rose [2][3].", TIED)[0].span_id == "short"


def test_confidence_zero_turns_the_ambiguity_rule_off() -> None:
    assert locate("Bridge tolls rose [1][2].", TIED, confidence=0)[0].span_id == "long"
    assert locate("Bridge tolls rose [2][1].", TIED, confidence=0)[0].span_id == "short"


BRIDGE = {
    "1": Chunk(
        "history",
        (
            Candidate("p1", "The bridge opened to traffic."),
            Candidate("p2", "The bridge opened after delays."),
            Candidate("p3", "The bridge opened with a parade and fireworks."),
            Candidate("p4", "Engineers finished the bridge in 1932."),
        ),
    )
}


def test_weighs_a_word_few_spans_hold_above_words_most_spans_hold() -> None:
    # Every span holds "bridge", p1-p3 hold "opened", only p4 holds "1932".
    found = locate("The bridge opened in 1932 [1].", BRIDGE, confidence=0)
    assert (found[0].span_id, found[0].score) == ("p4", pytest.approx(2 / 3))
    # Odds of 4 (one word in one of four spans) against 4/3 for each of three rivals.
    assert found[0].confidence == pytest.approx(4 / (4 + 3 * 4 / 3))


def test_returns_no_span_when_rivals_share_the_evidence() -> None:
    found = locate("The bridge opened in 1932 [1].", BRIDGE)
    assert found[0].span_id is None
    assert found[0].confidence is not None
    assert found[0].confidence < DEFAULT_CONFIDENCE


def test_locates_on_the_span_whose_rare_words_the_sentence_repeats() -> None:
    found = locate("The bridge opened with a parade and fireworks [1].", BRIDGE)
    assert found[0].span_id == "p3"
    assert found[0].confidence is not None
    assert found[0].confidence >= DEFAULT_CONFIDENCE


def test_a_word_every_span_holds_is_no_evidence() -> None:
    found = locate("It is a bridge [1].", BRIDGE)
    assert (found[0].span_id, found[0].score, found[0].confidence) == (None, 1.0, 1 / 4)


def test_reads_the_envelope_of_a_table_cell() -> None:
    chunks = {"1": Chunk("t", (Candidate("c1", "503", envelope="Bridge, row Main span, metres"),))}
    found = locate("The main span is 503 metres [1].", chunks)
    # A chunk of one span leaves no rival: the posterior is 1 and recall alone decides.
    assert (found[0].span_id, found[0].confidence) == ("c1", 1.0)


def test_returns_nothing_for_an_empty_answer() -> None:
    assert locate("   ", CHUNKS) == []


@pytest.mark.parametrize("threshold", [0.0, -0.1, 1.5, math.nan])
def test_rejects_a_threshold_outside_the_unit_interval(threshold: float) -> None:
    with pytest.raises(InvalidInput, match=r"threshold must be in \(0, 1\]") as caught:
        locate("Anything [1].", CHUNKS, threshold)
    assert (caught.value.field, caught.value.rule) == ("threshold", "unit_interval")


@pytest.mark.parametrize("confidence", [-0.1, 1.5, math.nan])
def test_rejects_a_confidence_outside_the_unit_interval(confidence: float) -> None:
    with pytest.raises(InvalidInput, match=r"confidence must be in \[0, 1\]") as caught:
        locate("Anything [1].", CHUNKS, confidence=confidence)
    assert (caught.value.field, caught.value.rule) == ("confidence", "unit_interval")


_WORDS = ["bridge", "tunnel", "opened", "in", "1992", "The", "tolls", "rose", "metres"]
_PIECES = st.one_of(
    st.sampled_from(_WORDS),
    st.sampled_from([".", ". ", "[1]", "[2]", "[1][2]", "[1, 2]", "[9]", " [2].", "\n\n", "? "]),
)


@given(st.lists(_PIECES, max_size=30).map(" ".join))
def test_located_sentences_are_ordered_disjoint_ranges_of_the_answer(answer: str) -> None:
    found = locate(answer, CHUNKS)
    previous_end = 0
    for located in found:
        assert previous_end <= located.start < located.end <= len(answer)
        assert located.sentence == strip_markers(answer[located.start : located.end])
        assert set(located.markers) <= {"1", "2"}
        if located.span_id is not None:
            assert located.score is not None
            assert located.score >= DEFAULT_THRESHOLD
            assert located.confidence is not None
            assert located.confidence >= DEFAULT_CONFIDENCE
        previous_end = located.end
    # Every known marker belongs to some sentence, unless the answer has no sentence at all.
    cited = [key for located in found for key in located.markers]
    marked = [m for m in find_markers(answer) if set(m.keys) & {"1", "2"}]
    assert bool(cited) == (bool(marked) and bool(found))
