"""RFC 8785 (JSON Canonicalization Scheme) serialisation.

Signatures and hashes in provledger are computed over the RFC 8785 form of a JSON value. The
``rfc8785`` package is the reference; this module adds a fast path that is byte-for-byte
identical to it for the values the ledger writes: integers within the IEEE 754 safe range, no
floats, and object keys without characters at or above U+E000. For those values RFC 8785's
rules (keys sorted by UTF-16 code units, shortest escapes, no whitespace) coincide with
``json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False)``; anything else goes
through ``rfc8785`` itself. A property test holds the two paths to the same output.
"""

from __future__ import annotations

import json
from typing import Any

import rfc8785

from ledger.errors import CanonicalisationError

# RFC 8785 section 3.2.2.3: numbers are IEEE 754 doubles, so integers must stay exact.
_MAX_SAFE_INTEGER = 2**53 - 1
# Below U+E000, code-point order and UTF-16 code-unit order agree (surrogates sit at D800-DFFF).
_FIRST_DIVERGENT_CODE_POINT = "\ue000"

_encode = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
).encode


def _fast_path_applies(value: Any) -> bool:
    """Tell whether ``value`` is in the subset where ``json.dumps`` equals RFC 8785."""
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str or kind is bool or item is None:
            continue
        if kind is int:
            if -_MAX_SAFE_INTEGER <= item <= _MAX_SAFE_INTEGER:
                continue
            return False
        if kind is dict:
            for key in item:
                if type(key) is not str:
                    return False
                # isascii() is a C-level scan; max() only for the rare non-ASCII key.
                if not key.isascii() and max(key) >= _FIRST_DIVERGENT_CODE_POINT:
                    return False
            stack.extend(item.values())
            continue
        if kind is list or kind is tuple:
            stack.extend(item)
            continue
        return False
    return True


def canonical_json(value: Any) -> bytes:
    """Return the RFC 8785 canonical UTF-8 encoding of ``value``.

    Raises :class:`CanonicalisationError` for values JSON cannot carry exactly: NaN or
    infinities, integers outside the safe range, lone surrogates, non-string keys.
    """
    try:
        if _fast_path_applies(value):
            return _encode(value).encode("utf-8")
        return bytes(rfc8785.dumps(value))
    except (ValueError, TypeError, UnicodeEncodeError, rfc8785.CanonicalizationError) as exc:
        raise CanonicalisationError(f"value has no RFC 8785 form: {exc}") from exc
