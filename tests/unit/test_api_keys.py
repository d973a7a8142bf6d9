"""API key secrets, names and scopes."""

from __future__ import annotations

import pytest

from ledger.errors import InvalidInput
from ledger.keys.api_keys import (
    Caller,
    check_name,
    hash_secret,
    name_in_secret,
    new_secret,
    parse_scopes,
)


def test_secret_names_its_key_and_is_stored_only_as_a_hash() -> None:
    secret = new_secret("report.gen-1")
    assert name_in_secret(secret) == "report.gen-1"
    assert hash_secret(secret).startswith("sha256:")
    assert secret not in hash_secret(secret)
    assert new_secret("report.gen-1") != secret


@pytest.mark.parametrize(
    "secret",
    ["", "plk", "plk.name", "xyz.name." + "a" * 43, "plk.name." + "a" * 42, "plk..a" + "a" * 42],
)
def test_malformed_secrets_name_no_key(secret: str) -> None:
    assert name_in_secret(secret) is None


def test_admin_implies_every_scope() -> None:
    admin = Caller("root", frozenset({"admin"}))
    reader = Caller("r", frozenset({"read"}))
    assert admin.allows("audit:read")
    assert reader.allows("read")
    assert not reader.allows("ingest")
    assert reader.actor == "key:r"


def test_scopes_are_validated_and_deduplicated() -> None:
    assert parse_scopes(["read", " ingest", "read"]) == ["read", "ingest"]
    with pytest.raises(InvalidInput, match="unknown scope 'write'") as caught:
        parse_scopes(["write"])
    assert (caught.value.field, caught.value.rule) == ("scopes", "known-scope")


@pytest.mark.parametrize("name", ["", "-lead", "has space", "x" * 65, "sl/ash"])
def test_rejects_malformed_key_names(name: str) -> None:
    with pytest.raises(InvalidInput, match="key name must match") as caught:
        check_name(name)
    assert caught.value.field == "name"
