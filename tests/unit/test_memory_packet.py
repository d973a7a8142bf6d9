"""Memory in the context packet (format v2), a memory version's effective scope, and the
validation of prompt-cache usage counts."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ledger.access.attributes import SourceAccess
from ledger.memory.item import MemoryVersion
from ledger.receipts.packet import render_packet
from ledger.receipts.usage import MAX_TOKENS, Usage
from tests.unit.test_context_packet import SPANS


def _version(text: str, purpose: str = "dispute-review", **scope: tuple[str, ...]) -> MemoryVersion:
    return MemoryVersion(
        version=1,
        purpose=purpose,
        scope=SourceAccess(**scope),  # type: ignore[arg-type]
        sources=({"kind": "span", "source_id": "policy", "span_id": "sp_b"},),
        text=text,
        expires_at="2999-01-01T00:00:00.000000Z",
        recorded_at="2026-01-01T00:00:00.000000Z",
    )


MEMORY = [
    ("mem_b", _version("Customer 7 disputes the charge.")),
    ("mem_a", _version("Customer 7 prefers email.")),
]


def test_a_packet_without_memory_is_v1_byte_for_byte() -> None:
    assert render_packet(SPANS, "q", memory=[]).text == render_packet(SPANS, "q").text
    assert render_packet(SPANS, "q").format == "provledger.context/v1"


def test_memory_comes_after_the_evidence_sorted_by_id_inside_the_stable_prefix() -> None:
    packet = render_packet(SPANS, "May the charge be reversed?", memory=MEMORY)
    text = packet.text
    marks = ["<citation-policy>", "<memory-policy>", "<evidence>", "<memory>", "<query>"]

    assert packet.format == "provledger.context/v2"
    assert text.startswith('<context-packet format="provledger.context/v2">')
    assert [text.index(m) for m in marks] == sorted(text.index(m) for m in marks)
    assert packet.prefix.endswith("</memory>\n")
    assert [m["memory_id"] for m in packet.memory] == ["mem_a", "mem_b"]
    assert packet.record() == {
        "format": "provledger.context/v2",
        "prefix_sha256": packet.prefix_sha256,
    }


def test_the_prefix_changes_with_the_memory_not_with_the_query() -> None:
    one = render_packet(SPANS, "first question", memory=MEMORY)
    two = render_packet(SPANS, "second question", memory=list(reversed(MEMORY)))
    other = render_packet(SPANS, "first question", memory=MEMORY[:1])

    assert one.prefix_sha256 == two.prefix_sha256
    assert one.prefix_sha256 != other.prefix_sha256


@given(st.text())
def test_memory_text_cannot_close_its_item_or_open_a_section(text: str) -> None:
    packet = render_packet(SPANS, "q", memory=[("mem_x", _version(text))])
    body = packet.prefix.split("<memory>\n", 1)[1]

    assert body.count("<item ") == 1
    assert body.count("</item>") == 1
    assert "<instructions>" not in body


def test_an_empty_scope_serves_the_items_purpose_only_and_a_named_one_wins() -> None:
    assert _version("x").effective_scope == SourceAccess(purposes=("dispute-review",))
    named = _version("x", purposes=("audit",), groups=("support",))
    assert named.effective_scope == SourceAccess(groups=("support",), purposes=("audit",))


def test_usage_counts_are_whole_numbers_from_zero_to_the_bound() -> None:
    assert Usage(0, MAX_TOKENS, 5).errors() == []
    found = Usage(-1, True, 1.5).errors()  # type: ignore[arg-type]
    assert [(e["field"], e["rule"]) for e in found] == [
        ("usage.input_tokens", "range"),
        ("usage.cache_creation_input_tokens", "integer"),
        ("usage.cache_read_input_tokens", "integer"),
    ]
    assert Usage(MAX_TOKENS + 1).errors()[0]["rule"] == "range"


def test_memory_stays_in_the_prefix_and_transformations_follow_it() -> None:
    transformation = {
        "transformation_id": "tfm_" + "0" * 24,
        "method": "summary",
        "inputs": [{"span_id": "sp_b"}],
        "output": "Refunds end after 30 days.",
    }
    before = render_packet(SPANS, "q", memory=MEMORY)
    after = render_packet(SPANS, "q", [transformation], memory=MEMORY)

    assert after.prefix_sha256 == before.prefix_sha256
    tail = after.text[after.prefix_length :]
    assert tail.startswith("<transformations>\n")
    assert after.text.index("</memory>") < after.text.index("<transformations>")
