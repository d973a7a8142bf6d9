"""Normalisation of quotes and span text before they are compared.

:func:`normalise_quote` removes only differences a reader would not call a misquotation:

1. Unicode NFKC (compatibility forms, e.g. no-break space and full-width letters);
2. typographic single quotes and the prime (U+2018, U+2019, U+201A, U+201B, U+2032) become
   ``'``; double quotes, guillemets and the double prime (U+201C-U+201F, U+00AB, U+00BB,
   U+2033) become ``"``;
3. dashes and the minus sign (U+2010-U+2015, U+2212) become ``-``;
4. every run of whitespace becomes one space, and the result is trimmed.

Case, digits, punctuation other than quotes and dashes, and spelling are kept: a quote that
differs from its span in any of those is a different quote.
"""

from __future__ import annotations

import unicodedata

_TRANSLATION = str.maketrans(
    {
        **dict.fromkeys("\u2018\u2019\u201a\u201b\u2032", "'"),
        **dict.fromkeys("\u201c\u201d\u201e\u201f\u00ab\u00bb\u2033", '"'),
        **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),
    }
)


def normalise_quote(text: str) -> str:
    """Return ``text`` in the comparison form described in the module docstring."""
    # ASCII text has no typographic quote or dash to map, and NFKC leaves it as it is.
    if not text.isascii():
        # Mapped before NFKC too, which would turn a double prime into two single primes.
        text = unicodedata.normalize("NFKC", text.translate(_TRANSLATION)).translate(_TRANSLATION)
    # str.split() cuts at exactly the characters ``\s`` matches, and drops them at both ends.
    return " ".join(text.split())
