"""``verify_envelope(hmac_key=...)`` takes the key itself (bytes) or a key file, and no error it
raises carries the secret: not in its message, its repr, its arguments or the errors chained to
it."""

from __future__ import annotations

import base64
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ledger.crypto.dsse import RECEIPT_PAYLOAD_TYPE, seal_envelope
from ledger.crypto.hmac_keys import HmacKey
from ledger.crypto.signing import SigningKey
from ledger.errors import KeyringError
from provledger import verify_envelope

SECRET = secrets.token_bytes(32)


def _envelope(secret: bytes) -> dict[str, Any]:
    return seal_envelope(b"{}", RECEIPT_PAYLOAD_TYPE, HmacKey(secret), SigningKey.generate())


def _hmac_verdict(verdict: Any) -> dict[str, Any]:
    [found] = [s for s in verdict.signatures if s["keyid"].startswith("hmac:")]
    return dict(found)


def _chain(error: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    pending: list[BaseException | None] = [error]
    while pending:
        current = pending.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        pending += [current.__cause__, current.__context__]


def _renderings(secret: bytes) -> list[str]:
    """The forms a secret could take in a message."""
    return [
        secret.hex(),
        secret.hex().upper(),
        base64.b64encode(secret).decode(),
        repr(secret)[2:-1],
        secret.decode("latin-1"),
    ]


def _assert_secret_free(error: BaseException, secret: bytes) -> None:
    for link in _chain(error):
        texts = [str(link), repr(link), *(repr(arg) for arg in link.args)]
        texts += [repr(getattr(link, "object", ""))]  # UnicodeDecodeError keeps its input
        for text in texts:
            for form in _renderings(secret):
                assert form not in text, f"{type(link).__name__} carries the secret: {text[:80]}"


def test_the_key_itself_as_bytes_verifies_the_hmac_signature() -> None:
    verdict = verify_envelope(_envelope(SECRET), hmac_key=SECRET)

    assert _hmac_verdict(verdict)["valid"] is True


def test_another_key_given_as_bytes_does_not_verify_it() -> None:
    verdict = verify_envelope(_envelope(SECRET), hmac_key=secrets.token_bytes(32))

    assert _hmac_verdict(verdict)["valid"] is False
    assert not verdict.valid


def test_a_key_file_given_as_a_path_or_a_str_still_verifies(tmp_path: Path) -> None:
    path = tmp_path / "receipt-hmac.key"
    path.write_text(SECRET.hex() + "\n")

    for given in (path, str(path)):
        assert _hmac_verdict(verify_envelope(_envelope(SECRET), hmac_key=given))["valid"] is True


def test_a_short_key_is_refused_without_showing_it() -> None:
    short = SECRET[:16]

    with pytest.raises(ValueError, match="at least 32 bytes") as refused:
        verify_envelope(_envelope(SECRET), hmac_key=short)

    _assert_secret_free(refused.value, short)


@pytest.mark.parametrize("secret", [SECRET, secrets.token_bytes(3000)], ids=["32", "3000"])
def test_the_hex_secret_passed_as_a_str_is_read_as_a_path_and_never_echoed(
    secret: bytes,
) -> None:
    with pytest.raises(KeyringError) as refused:
        verify_envelope(_envelope(secret), hmac_key=secret.hex())

    assert "pass the key itself as bytes" in str(refused.value)
    _assert_secret_free(refused.value, secret)


@pytest.mark.parametrize(
    "content",
    [
        SECRET + b"\xff\xfe not ascii",
        b"zz" + SECRET.hex().encode(),
        SECRET.hex()[:20].encode(),
    ],
    ids=["binary", "not-hex", "short-hex"],
)
def test_a_bad_key_file_is_refused_without_showing_its_content(
    tmp_path: Path, content: bytes
) -> None:
    path = tmp_path / "receipt-hmac.key"
    path.write_bytes(content)

    with pytest.raises(KeyringError) as refused:
        verify_envelope(_envelope(SECRET), hmac_key=path)

    assert "receipt-hmac.key" in str(refused.value)
    _assert_secret_free(refused.value, SECRET)
    _assert_secret_free(refused.value, content)


def test_a_key_of_another_type_is_refused_by_type_only() -> None:
    with pytest.raises(TypeError, match="hmac_key") as refused:
        verify_envelope(_envelope(SECRET), hmac_key=list(SECRET))  # type: ignore[arg-type]

    _assert_secret_free(refused.value, SECRET)
    assert str(list(SECRET)) not in str(refused.value)
