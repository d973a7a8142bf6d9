"""The words of a loss boundary: what a transformation declares it may remove and must keep,
and the cues by which a must-keep item is found in its inputs and recognised in its output.

Every cue list is built from the commit gate's lexicon (:mod:`ledger.gate.lexicon.cues`,
:mod:`ledger.gate.alignment.clauses`), so a negation or a hedge is the same word here as in a
claim check; what is added is said beside each list. Cues are lower-case tokens
(:func:`ledger.gate.lexicon.words.tokens`); a cue of two words (``subject to``) is written with
one space.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from ledger.gate.alignment.clauses import EXCEPTIONS
from ledger.gate.lexicon.cues import CONDITIONS, HEDGES, NEGATION_CUES, STRICT_HEDGES
from ledger.gate.lexicon.words import word_set


class MustKeep(StrEnum):
    """What the output of a transformation must keep of its inputs."""

    EXCEPTIONS = "exceptions"
    """Exceptions and conditions: a clause that excludes (``except``, ``unless``, ``are
    excluded``) or that makes a statement hold only under a condition (``if``, ``only to``,
    ``provided that``, ``subject to``)."""
    NUMBERS = "numbers"
    """Thresholds and numbers: every figure, with its currency and unit."""
    DATES = "dates"
    """Every calendar date and year."""
    NEGATIONS = "negations"
    """A clause that denies (``not``, ``no``, ``never``, ``without``)."""
    UNCERTAINTY = "uncertainty"
    """A clause that hedges (``may``, ``likely``, ``approximately``, ``preliminary``)."""
    MINORITY_VIEWS = "minority_views"
    """A clause that sets a view against another (``however``, ``but``, ``disagreed``,
    ``dissenting``)."""


class MayRemove(StrEnum):
    """What a transformation declares it may remove. ``examples`` and ``low_weight_sources``
    release the must-keep items of the material they name (the ledger can tell that material
    apart); ``repetition`` and ``procedure`` are recorded as declared and release nothing: an
    item said twice survives when the output says it once, and a threshold inside a procedure
    is still a threshold."""

    REPETITION = "repetition"
    EXAMPLES = "examples"
    PROCEDURE = "procedure"
    LOW_WEIGHT_SOURCES = "low_weight_sources"


EXCLUSIONS = (
    EXCEPTIONS
    | {"unless"}
    | word_set(
        """
        exclude excludes excluded exclusion exclusions exempt exempts exempted exemption
        ineligible
        """
    )
    | {"other than", "apart from"}
)
"""Cues of an exception: the gate's exception words (``except``, ``excluding``), ``unless``
(an exception to what the clause before it says), the words that exclude by name (``are
excluded``, ``is exempt``, ``ineligible``) and ``other than``, ``apart from``."""

CONDITION_CUES = (
    (CONDITIONS - {"unless"})
    | {"only when", "only where", "only after", "only for", "only to"}
    | {"provided that", "providing that", "subject to"}
)
"""Cues of a condition: the gate's ``if`` (so ``only if``), ``only`` before when, where,
after, for or to (``available only to customers in the EU``; not ``only costs $20``, which
says how little), ``provided that`` and ``subject to``."""

NEGATIONS = NEGATION_CUES - EXCLUSIONS
"""The gate's negation cues (``not``, ``no``, ``never``, ``n't``, ``without``, ``lack``, ...)
less the exception words it also counts (``except``, ``unless``, ``excluding``): those mark
an exception here."""

OBLIGATIONS = word_set("must should shall ought")
UNCERTAINTY = HEDGES | (STRICT_HEDGES - OBLIGATIONS)
"""The gate's hedges (``may``, ``might``, ``likely``, ``approximately``, ``estimated``,
``preliminary``, ...) and its strict hedges (``unlikely``, ``nearly``, ``rarely``, ``doubt``,
``believe``), less the words of obligation (``must``, ``should``), which say what is required,
not how certain it is."""

MINORITY = word_set(
    """
    but however although though whereas nevertheless nonetheless conversely dissent dissents
    dissented dissenting disagree disagrees disagreed disagreement minority contested contend
    contends contended objected objection objections critics argue argues argued
    """
)
"""Cues of a view set against another: the gate's contrast conjunctions (``but``,
``although``, ``though``, ``whereas``; not ``while``, more often a time), ``however``,
``nevertheless`` and the words of dissent (``disagreed``, ``dissenting``, ``a minority``,
``contested``, ``critics argue``). Not ``dispute``: a customer's dispute is a fact, not a
view."""


@dataclass(frozen=True, slots=True)
class Cue:
    """One kind of cue: the must-keep item it marks, the words that mark it in an input (and
    as kept in the output), and the words that may stand in for them in the output when the
    input clause holds none of those itself: an exclusion may be kept as a negation (``are
    excluded``, ``are not eligible``) and a negation as an exclusion, but in ``should not
    take more than 2 g unless a physician advises`` the ``not`` answers for itself, so an
    output that writes ``if`` for ``unless`` has lost the exception."""

    name: str
    kind: MustKeep
    words: frozenset[str]
    stand_ins: frozenset[str] = frozenset()

    def kept_by(self, clause_cues: frozenset[str]) -> frozenset[str]:
        """The output words that keep this cue of a clause with ``clause_cues``."""
        if self.stand_ins and clause_cues.isdisjoint(self.stand_ins):
            return self.words | self.stand_ins
        return self.words


CUES = (
    Cue("exception", MustKeep.EXCEPTIONS, EXCLUSIONS, NEGATIONS),
    Cue("condition", MustKeep.EXCEPTIONS, CONDITION_CUES),
    Cue("negation", MustKeep.NEGATIONS, NEGATIONS, EXCLUSIONS),
    Cue("hedge", MustKeep.UNCERTAINTY, UNCERTAINTY),
    Cue("minority view", MustKeep.MINORITY_VIEWS, MINORITY),
)
"""Every cue, in the order a clause's items are listed."""

CUE_WORDS = frozenset(part for cue in CUES for word in cue.words for part in word.split())
"""Every word of every cue: not a content word of a clause (``excluded`` written as ``not
eligible`` keeps the exception)."""

EXAMPLE_OPENINGS = (
    ("for", "example"),
    ("for", "instance"),
    ("e.g",),
    ("eg",),
    ("example",),
    ("examples",),
    ("to", "illustrate"),
)
"""How a sentence that is an example opens (``For example, ...``, ``E.g. ...``,
``Example: ...``): its items are released when the transformation may remove examples."""
