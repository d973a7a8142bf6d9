"""The light suffix stripper the content checks and re-attribution share.

It only has to make inflections of one word meet (``approved``, ``approves``, ``approving``),
not to produce dictionary words. Each caller passes its own suffix table: the gate keeps to
inflections, re-attribution also folds a few derivational endings.
"""

from __future__ import annotations

MIN_STEM = 3
"""Letters a stem keeps at least; shorter words are returned unchanged."""

INFLECTIONS: tuple[tuple[str, str], ...] = (
    ("ies", "y"),
    ("ied", "y"),
    ("ing", ""),
    ("edly", ""),
    ("ed", ""),
    ("ly", ""),
    ("ches", "ch"),
    ("shes", "sh"),
    ("sses", "ss"),
    ("xes", "x"),
    ("s", ""),
)
"""Inflectional suffixes with their replacements, the first that fits winning: a suffix that
ends another comes after it (``-ies`` before ``-s``, ``-edly`` before ``-ly``)."""

NOT_PLURALS = ("ss", "us", "is")
"""Endings in ``s`` that are not plurals (``class``, ``census``, ``analysis``)."""


def strip_suffix(word: str, suffixes: tuple[tuple[str, str], ...]) -> str | None:
    """A lower-case ``word`` with the first suffix of ``suffixes`` it ends in replaced, then a
    final ``e`` and a doubled consonant dropped.

    Returns ``None`` when ``word`` is kept as it is: three letters or fewer, a number, or an
    ``-ss``/``-us``/``-is`` ending that is not a plural.
    """
    if len(word) <= MIN_STEM or word[0].isdigit():
        return None
    for suffix, replacement in suffixes:
        if word.endswith(suffix) and len(word) - len(suffix) >= MIN_STEM:
            if suffix == "s" and word.endswith(NOT_PLURALS):
                return None
            word = word[: len(word) - len(suffix)] + replacement
            break
    if len(word) > MIN_STEM + 1 and word.endswith("e"):
        word = word[:-1]
    if len(word) > MIN_STEM + 1 and word[-1] == word[-2] and word[-1] not in "aeiouls":
        word = word[:-1]
    return word
