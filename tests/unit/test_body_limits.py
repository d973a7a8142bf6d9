"""Body limits: one for every route, a larger one for source texts, both from the environment."""

from __future__ import annotations

import pytest

from api.settings import Settings


def test_the_source_body_limit_follows_the_text_limit_by_default() -> None:
    settings = Settings(max_text_bytes=1000)

    assert settings.max_body_bytes == 4 * 1024 * 1024
    assert settings.source_body_limit == 3 * 1000 + 1024 * 1024


def test_both_limits_are_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PROVLEDGER_MAX_BODY_BYTES", "2048")
    monkeypatch.setenv("PROVLEDGER_MAX_SOURCE_BODY_BYTES", "65536")

    settings = Settings()

    assert (settings.max_body_bytes, settings.source_body_limit) == (2048, 65536)


@pytest.mark.parametrize("name", ["max_body_bytes", "max_source_body_bytes"])
def test_a_limit_below_one_byte_is_refused(name: str) -> None:
    with pytest.raises(ValueError, match="greater than or equal to 1"):
        Settings(**{name: 0})
