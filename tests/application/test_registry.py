"""The source registry's commands, driven through the services without HTTP."""

from __future__ import annotations

import pytest

from api.services import Services
from ledger.errors import Conflict, NotFound, PayloadTooLarge
from ledger.registry.ingestion import Limits
from ledger.registry.source_desk import SourceDraft


def test_a_registered_source_gets_version_one_with_its_spans(services: Services) -> None:
    receipt = services.sources.register(
        "doc-1", SourceDraft("One sentence. Two sentences.", "text/plain", "Doc"), "derived", "t"
    )

    assert receipt.version == 1
    assert [span.text for span in receipt.spans] == ["One sentence.", "Two sentences."]
    assert services.sources.get("doc-1").withdrawn is False


def test_the_same_text_registered_again_writes_nothing(services: Services) -> None:
    draft = SourceDraft("Text.", "text/plain", "Doc")
    services.sources.register("doc-1", draft, "derived", "t")
    position = services.ledger.last_position()

    again = services.sources.register("doc-1", draft, "derived", "t")

    assert again.created is False
    assert services.ledger.last_position() == position


def test_another_text_under_a_registered_source_id_is_a_conflict(services: Services) -> None:
    services.sources.register("doc-1", SourceDraft("Text.", "text/plain", "D"), "derived", "t")

    with pytest.raises(Conflict) as caught:
        services.sources.register(
            "doc-1", SourceDraft("Other text.", "text/plain", "D"), "derived", "t"
        )

    assert str(caught.value) == (
        "source 'doc-1' already exists with different text; add a version "
        "with POST /v1/sources/doc-1/versions"
    )


def test_a_text_over_the_registry_limit_is_too_large(services: Services) -> None:
    services.sources.limits = Limits(max_text_bytes=10)

    with pytest.raises(PayloadTooLarge) as caught:
        services.sources.register(
            "doc-1", SourceDraft("A text longer than ten bytes.", "text/plain", "D"), "derived", "t"
        )

    assert "limit is 10 bytes" in str(caught.value)


def test_withdrawing_an_unknown_source_is_not_found(services: Services) -> None:
    with pytest.raises(NotFound) as caught:
        services.sources.withdraw("nope", "gone", "t")

    assert "nope" in str(caught.value)
