"""Paraphrase pairs: a claim word standing where its span has another form of it or a synonym.

An extractive claim repeats its span's words; a consistent rewrite often swaps one word for
another form of it (``lives``/``live``, ``ran``/``run``) or for a word of the same WordNet
synset (``incursion``/``invasion``, ``road``/``route``). Such a pair is accepted only *in
place*: in the stretch between two words the alignment matched (or the margin before the
first or after the last), in order, so that polarity, hedges and anchors are still read at
the aligned positions (:mod:`ledger.gate.alignment`). Neither word may be an anchor, a
negation, a hedge, a direction word or a word with an opposite (those are where
contradictions live: ``rise``/``fall`` never pair, whatever WordNet says of their senses),
nor a word the other side holds elsewhere (``the buyer pays the seller`` over ``the seller
pays the buyer`` stays a role swap), nor a proper noun (WordNet spells those capitalised;
only its lower-case lemmas are read).

Base forms follow morphy(7WN): WordNet's exception lists (``*.exc``), then its detachment
rules, keeping a form WordNet lists. The data is the WordNet 3.0 database of the ``wn``
distribution (:func:`ledger.gate._lexicon.wordnet_dir`), read once, on first use.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from itertools import pairwise

from ledger.gate._aligned_words import GRAMMAR, Kind, Word
from ledger.gate._lexicon import are_opposites, wordnet_dir
from ledger.gate._polarity_cues import DIRECTIONS

_POS = ("noun", "verb", "adj", "adv")
_RULES: dict[str, tuple[tuple[str, str], ...]] = {
    "noun": (
        ("s", ""),
        ("ses", "s"),
        ("ves", "f"),
        ("xes", "x"),
        ("zes", "z"),
        ("ches", "ch"),
        ("shes", "sh"),
        ("men", "man"),
        ("ies", "y"),
    ),
    "verb": (
        ("s", ""),
        ("ies", "y"),
        ("es", "e"),
        ("es", ""),
        ("ed", "e"),
        ("ed", ""),
        ("ing", "e"),
        ("ing", ""),
    ),
    "adj": (("er", ""), ("est", ""), ("er", "e"), ("est", "e")),
    "adv": (),
}
"""The detachment rules of morphy(7WN), by part of speech."""

LEAD_MARGIN = 3
"""Span words that are not grammar before the first match (after the last) a pair may use."""
_CONJUNCTIONS = frozenset(["and", "or", "but", "while", "whereas", "although", "though"])

Pair = tuple[int, int, str]
"""A claim index, a span index, and how they relate: ``inflection`` or ``synonym``."""


_POINTER_POS = {"n": 0, "v": 1, "a": 2, "s": 2, "r": 3}
_BROADER = frozenset({"&"})
"""Pointers to a like sense: for adjectives, similar to (``ailing`` -> ``ill``). Hypernyms
(``@``: ``fell`` for ``plunged``) were measured too and let a swap edit through."""


@dataclass(frozen=True, slots=True)
class _WordNet:
    """Per part of speech, each one-word lower-case lemma's synsets and the exception lists
    (an inflected form and its base forms); for each synset, its broader or like synsets."""

    senses: dict[str, dict[str, frozenset[int]]]
    exceptions: dict[str, dict[str, list[str]]]
    broader: dict[int, frozenset[int]]


@cache
def _wordnet() -> _WordNet:
    """WordNet as :class:`_WordNet` (format: wndb(5WN), ``offset lex_filenum ss_type w_cnt
    word lex_id ... p_cnt ptr ...``); empty when the database is not installed."""
    root = wordnet_dir()
    found = _WordNet({}, {}, {})
    if root is None:
        return found
    for n, pos in enumerate(_POS):
        lemmas: dict[str, set[int]] = {}
        for line in (root / f"data.{pos}").read_text(encoding="latin-1").splitlines():
            if line.startswith(" "):
                continue
            fields = line.split(" | ", 1)[0].split(" ")
            synset = int(fields[0]) * 4 + n
            count = int(fields[3], 16)
            for i in range(count):
                lemma = fields[4 + 2 * i].split("(")[0]
                if lemma.islower() and "_" not in lemma:
                    lemmas.setdefault(lemma, set()).add(synset)
            at = 4 + 2 * count
            wider = [
                int(fields[j + 1]) * 4 + _POINTER_POS[fields[j + 2]]
                for j in range(at + 1, at + 1 + 4 * int(fields[at]), 4)
                if fields[j] in _BROADER
            ]
            if wider:
                found.broader[synset] = frozenset(wider)
        found.senses[pos] = {lemma: frozenset(ids) for lemma, ids in lemmas.items()}
        listed: dict[str, list[str]] = {}
        for line in (root / f"{pos}.exc").read_text(encoding="latin-1").splitlines():
            form, *bases = line.split()
            listed[form] = bases
        found.exceptions[pos] = listed
    return found


@lru_cache(maxsize=65536)
def base_forms(word: str) -> frozenset[str]:
    """The base forms of ``word`` WordNet lists, over every part of speech (morphy(7WN))."""
    wordnet = _wordnet()
    senses, exceptions = wordnet.senses, wordnet.exceptions
    out: set[str] = set()
    for pos in _POS:
        known = senses.get(pos, {})
        listed = exceptions.get(pos, {}).get(word)
        if listed is not None:
            out.update(f for f in [word, *listed] if f in known)
            continue
        forms = [word] + [word[: -len(old)] + new for old, new in _RULES[pos] if word.endswith(old)]
        out.update(f for f in forms if f in known)
    return frozenset(out)


@lru_cache(maxsize=65536)
def _synsets(word: str) -> frozenset[int]:
    senses = _wordnet().senses
    return frozenset(
        s for base in base_forms(word) for pos in _POS for s in senses.get(pos, {}).get(base, ())
    )


@lru_cache(maxsize=65536)
def _broader(word: str) -> frozenset[int]:
    broader = _wordnet().broader
    return frozenset(b for s in _synsets(word) for b in broader.get(s, ()))


def relation(claim: str, span: str) -> str | None:
    """How a claim word may stand for a span word: ``inflection`` (a shared base form),
    ``synonym`` (a shared WordNet synset), ``similar`` (an adjective of a sense WordNet
    links to the span word's as similar); ``None`` otherwise."""
    if claim == span or base_forms(claim) & base_forms(span):
        return "inflection"
    mine = _synsets(claim)
    if mine & _synsets(span):
        return "synonym"
    if mine & _broader(span):
        return "similar"
    return None


def _pairable(word: Word) -> bool:
    """Whether a word may pair: a plain word, not grammar, a cue or a direction word."""
    return (
        word.kind is Kind.WORD
        and word.text not in GRAMMAR
        and not word.negation
        and not word.hedge
        and word.text not in DIRECTIONS
        and word.text.isalpha()
    )


def _trail_end(span: Sequence[Word], last: int) -> int:
    """One past the last span word of the margin after span word ``last``: up to
    :data:`LEAD_MARGIN` words that are not grammar, never past a conjunction."""
    at, seen = last + 1, 0
    while at < len(span) and seen < LEAD_MARGIN and span[at].text not in _CONJUNCTIONS:
        if span[at].text not in GRAMMAR:
            seen += 1
        at += 1
    return at


def paraphrase_pairs(
    clause: list[Word],
    span: Sequence[Word],
    positions: dict[str, tuple[int, ...]],
    pairs: list[tuple[int, int]],
    lead: int,
    taken: set[int],
) -> list[Pair]:
    """Pairs of an unmatched claim word and a span word in the same stretch of ``pairs``
    (sorted), in order, that are another form of each other or synonyms (see the module
    docstring). ``lead`` is where the span's leading margin begins; ``taken``: claim and span
    positions already used (a span position ``j`` as ``-j - 1``)."""
    claim_keys = {w.key for w in clause}
    used = {c for c, _ in pairs} | {i for i in taken if i >= 0}
    used_span = {s for _, s in pairs} | {-i - 1 for i in taken if i < 0}
    gaps = [(-1, pairs[0][0], lead - 1, pairs[0][1])]
    gaps += [(c1, c2, s1, s2) for (c1, s1), (c2, s2) in pairwise(pairs)]
    gaps.append((pairs[-1][0], len(clause), pairs[-1][1], _trail_end(span, pairs[-1][1])))
    out: list[Pair] = []
    for c1, c2, s1, s2 in gaps:
        after = s1
        for c in range(c1 + 1, c2):
            mine = clause[c]
            if c in used or not mine.must or not _pairable(mine):
                continue
            if mine.key in positions:
                continue
            for s in range(after + 1, s2):
                theirs = span[s]
                if (
                    s in used_span
                    or theirs.key in claim_keys
                    or not _pairable(theirs)
                    or are_opposites(mine.key, theirs.key)
                ):
                    continue
                how = relation(mine.text, theirs.text)
                if how is not None:
                    out.append((c, s, how))
                    after = s
                    break
    return out
