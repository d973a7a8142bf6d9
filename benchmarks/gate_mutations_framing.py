"""Minimal edits of how a true sentence frames what it states, for the gate evaluation.

The same contract as :mod:`benchmarks.gate_mutations` (one edit of the first candidate, or
``None``), for what qualifies a statement: a deed only attempted stated as done, a bounded
figure stated exactly, a part said as the whole, some said as all, how often, an exception, an
obligation, a lower rank, a former state, the phrase a negation is narrowed by; and the time
relation, repetition, change or level, relative period, cause and position a sentence states.
Written independently of the gate's word lists.
"""

from __future__ import annotations

import re


def _cut(sentence: str, match: re.Match[str] | None) -> str | None:
    """The sentence without ``match`` (the word after it capitalised when it opened the
    sentence), or ``None`` when there is no match."""
    if match is None:
        return None
    rest = sentence[match.end() :]
    if match.start() == 0:
        rest = rest[:1].upper() + rest[1:]
    return sentence[: match.start()] + rest


def _put(sentence: str, match: re.Match[str], word: str) -> str:
    """The sentence with ``word`` in place of ``match``, capitalised as the match was."""
    if match.group(0)[:1].isupper():
        word = word[:1].upper() + word[1:]
    return sentence[: match.start()] + word + sentence[match.end() :]


_GOVERNED = re.compile(
    r"\b(?:failed|refused|neglected|declined|tried|attempted|sought|planned|hoped|wanted|"
    r"intended|aimed|offered|promised|pledged|vowed|threatened|proposed|wished|"
    r"(?:is|are|was|were) (?:unable|about|yet|set|going|expected|likely|eager|ready)|"
    r"(?:has|have|had) yet)\s+to\s+([a-z]+)\b"
)
_IRREGULAR = frozenset(
    """
    be have do go come get give take make buy sell win lose pay find keep leave meet run see
    send spend tell think bring build hold know lead read say set stand teach write begin
    break choose drive eat fall fight fly forget grow hide hit let lie put ride ring rise shut
    sing sit sleep speak split spread steal strike swim swing throw wake wear
    """.split()  # noqa: SIM905 (a word list, as the other lists here are written)
)


def _past(verb: str) -> str | None:
    """The past tense of a regular verb (``approve`` -> ``approved``, ``carry`` ->
    ``carried``), ``None`` for an irregular one."""
    if verb in _IRREGULAR:
        return None
    if verb.endswith("e"):
        return verb + "d"
    if verb.endswith("y") and verb[-2:-1] not in "aeiou":
        return verb[:-1] + "ied"
    return verb + "ed"


def embedded(sentence: str) -> str | None:
    """State as done what the sentence's first predicate only attempts, intends or fails to
    do: ``The board failed to approve the plan`` -> ``The board approved the plan`` (regular
    verbs only, so that the claim keeps the span's word)."""
    match = _GOVERNED.search(sentence)
    if match is None:
        return None
    past = _past(match.group(1))
    if past is None:
        return None
    return sentence[: match.start()] + past + sentence[match.end() :]


_BOUNDED = re.compile(
    r"\b(?:[Mm]ore than|[Ll]ess than|[Ff]ewer than|[Aa]t least|[Aa]t most|[Uu]p to|[Oo]ver|"
    r"[Uu]nder|[Aa]bove|[Bb]elow|[Nn]early|[Aa]lmost|[Aa]pproximately|[Aa]bout|[Aa]round|"
    r"[Rr]oughly|[Ii]n excess of|[Uu]pwards of|[Cc]lose to|[Jj]ust over|[Jj]ust under)\s+"
    r"(?=[$\u20ac\u00a3]?\d|(?:doubled|tripled|quadrupled|halved)\b)"
)


def bound(sentence: str) -> str | None:
    """Drop the bound of the sentence's first bounded figure (``over $5 million`` -> ``$5
    million``, ``at least 200`` -> ``200``, ``more than doubled`` -> ``doubled``): the claim
    states exactly what the sentence only bounds."""
    return _cut(sentence, _BOUNDED.search(sentence))


_RELATIONS = {"before": "during", "after": "during", "during": "after", "until": "after"}
_RELATION = re.compile(r"\b(?:[Bb]efore|[Aa]fter|[Dd]uring|[Uu]ntil)\b(?=\s+(?:the|an?|\d|[A-Z]))")


def relation(sentence: str) -> str | None:
    """Move what the sentence's first time relation says to another time (``after the
    merger`` -> ``during the merger``, ``during`` -> ``after``, ``until`` -> ``after``)."""
    match = _RELATION.search(sentence)
    if match is None:
        return None
    return _put(sentence, match, _RELATIONS[match.group(0).lower()])


_FINAL_STOP = re.compile(r"(?<=[a-z0-9])\.$")


def again(sentence: str) -> str | None:
    """Say that what the sentence says happened again (``... approved the plan.`` -> ``...
    approved the plan again.``): a repetition the sentence does not state."""
    text = sentence.rstrip()
    if re.search(r"\bagain\b", text, re.IGNORECASE) or not _FINAL_STOP.search(text):
        return None
    return text[:-1] + " again."


_PARTS = re.compile(
    r"(?<!\bas )(?<!\bas a )\b(?:half (?:of )?|(?:a )?part of |a portion of |a fraction of )",
    re.IGNORECASE,
)


def part(sentence: str) -> str | None:
    """Say the whole where the sentence says a part (``sold half its stake`` -> ``sold its
    stake``, ``part of the fee`` -> ``the fee``)."""
    return _cut(sentence, _PARTS.search(sentence))


_CHANGE = re.compile(r"\b(by|to)(?=\s+[$\u20ac\u00a3]?\d)")


def level(sentence: str) -> str | None:
    """Turn the sentence's first change into a level or back (``rose by 5%`` -> ``rose to
    5%``, ``fell to $3 million`` -> ``fell by $3 million``)."""
    match = _CHANGE.search(sentence)
    if match is None:
        return None
    return _put(sentence, match, "to" if match.group(1) == "by" else "by")


_FREQUENCY = re.compile(
    r"\b(?:sometimes|occasionally|often|frequently|rarely|seldom|hardly ever|barely|"
    r"periodically)\s+",
    re.IGNORECASE,
)


def frequency(sentence: str) -> str | None:
    """Drop how often the sentence says something happens (``is sometimes charged`` -> ``is
    charged``): the claim says it always does."""
    return _cut(sentence, _FREQUENCY.search(sentence))


_EXCEPTION = re.compile(r",?\s+(?:except|excluding)\b[^,.;:()]*", re.IGNORECASE)
_UNIT_NOTE = re.compile(r"(?:thousands|millions|billions)\b[^;:()]{0,40}$", re.IGNORECASE)


def exception(sentence: str) -> str | None:
    """Drop the sentence's first exception (``, except in Europe``, ``excluding fees``; not the
    ``except`` of a unit note, ``in thousands, except per share data``): the claim then says
    it of everything."""
    match = _EXCEPTION.search(sentence)
    if match is None or _UNIT_NOTE.search(sentence[: match.start()]):
        return None
    edited = sentence[: match.start()] + sentence[match.end() :]
    return edited if len(edited.split()) >= 4 else None


_RECENT = re.compile(r"\b([Ll]ast|[Nn]ext|[Tt]his)(?= (?:week|month|quarter|year|season)\b)")


def recency(sentence: str) -> str | None:
    """Move the sentence's first relative period (``last year`` -> ``this year``, ``this
    week`` -> ``last week``, ``next month`` -> ``this month``)."""
    match = _RECENT.search(sentence)
    if match is None:
        return None
    return _put(
        sentence, match, {"last": "this", "this": "last", "next": "this"}[match.group(1).lower()]
    )


_CAUSE = re.compile(r"\b(?:because of|because|although|though|despite|due to|thanks to)\b(?=\s+\w)")
_CAUSES = {
    "because of": "despite",
    "because": "although",
    "although": "because",
    "though": "because",
    "despite": "because of",
    "due to": "despite",
    "thanks to": "despite",
}


def cause(sentence: str) -> str | None:
    """Turn the sentence's first cause into a concession or back (``because`` -> ``although``,
    ``despite`` -> ``because of``, ``due to`` -> ``despite``), where a clause follows it."""
    match = _CAUSE.search(sentence)
    if match is None:
        return None
    return _put(sentence, match, _CAUSES[match.group(0)])


_OBLIGED = re.compile(r"\b(?:must|should|shall|ought to)\s+(?!not\b|have\b|be\b)(?=[a-z]+\b)")


def obligation(sentence: str) -> str | None:
    """State what the sentence says must or should be done as done: drop the modal before
    a verb (``Tenants must pay the fee.`` -> ``Tenants pay the fee.``)."""
    return _cut(sentence, _OBLIGED.search(sentence))


_RANKED = re.compile(
    r"\b(?:one of the |among the |(?:second|third|fourth|fifth)[- ])(?=\w+est\b|most\b|best\b)",
    re.IGNORECASE,
)


def rank(sentence: str) -> str | None:
    """Put first what the sentence ranks lower (``one of the largest banks`` -> ``the
    largest banks``, ``second-largest`` -> ``largest``)."""
    match = _RANKED.search(sentence)
    if match is None:
        return None
    word = match.group(0).lower()
    keep = "the " if word.startswith(("one of", "among")) else ""
    return _put(sentence, match, keep)


_FORMER = re.compile(r"\b(?:former|formerly|previously)\s+", re.IGNORECASE)


def former(sentence: str) -> str | None:
    """Say that what the sentence puts in the past holds now (``the former CEO`` -> ``the
    CEO``, ``was formerly known as`` -> ``was known as``)."""
    return _cut(sentence, _FORMER.search(sentence))


_POSITIONS = {
    "for": "against",
    "against": "for",
    "on": "behind",
    "behind": "ahead of",
    "within": "over",
    "into": "out of",
    "at": "below",
}
_POSITION = re.compile(
    r"\b(?:voted (?P<vote>for|against)|(?P<time>on|behind) schedule|(?P<budget>within) budget"
    r"|moved (?P<move>into)|traded (?P<par>at) par)\b"
)


def position(sentence: str) -> str | None:
    """Swap the sentence's first position of a vote, a schedule, a budget, a move or a price
    (``voted for`` -> ``voted against``, ``on schedule`` -> ``behind schedule``, ``within
    budget`` -> ``over budget``, ``moved into`` -> ``moved out of``, ``at par`` -> ``below
    par``)."""
    match = _POSITION.search(sentence)
    if match is None:
        return None
    group = next(name for name, value in match.groupdict().items() if value)
    start, end = match.span(group)
    return sentence[:start] + _POSITIONS[match.group(group)] + sentence[end:]


_NEGATED_TAIL = re.compile(
    r"\b(?:not|never|no(?!\.?\s*\d)|n't|without)\s+[^,;:()]*\w\s+"
    r"(?P<tail>(?:in|on|for|since|during|from|at|by|with|under|over|after|before|until)"
    r"(?:\s+[^\s,;:()]+?){1,5})(?P<end>[.!?]?\s*)$",
    re.IGNORECASE,
)


def scope(sentence: str) -> str | None:
    """Drop the phrase that ends the clause of the sentence's negation (``has not paid a
    dividend since 2019`` -> ``has not paid a dividend``): what followed the negation
    narrowed what it denied, so the sentence now denies more. ``No 310`` (a number) is no
    negation, and no phrase in brackets is cut."""
    match = _NEGATED_TAIL.search(sentence)
    if match is None or " and " in match.group(0) or " but " in match.group(0):
        return None
    return sentence[: match.start("tail")].rstrip() + match.group("end")


_QUANTIFIER = re.compile(
    r"(?<!\bthe )(?<!\bat )(?<!\bThe )(?<!\bAt )(?<!'s )(?<!\bhis )(?<!\bher )"
    r"(?<!\bits )(?<!\btheir )(?<!\bour )(?<!\bmy )(?<!\byour )(?<!\bsome )(?<!\ba )"
    r"\b(?:a few|most|many|several|few)\s+"
    r"(?!of\b|more\b|less\b|other\b|times\b|years\b|\d)(?=[a-z])",
    re.IGNORECASE,
)


def quantifier(sentence: str) -> str | None:
    """Drop the sentence's first quantifier of a noun (``for most patients`` -> ``for
    patients``, ``Many analysts expect`` -> ``Analysts expect``): the sentence now says of all
    what it said of some. Not ``the most``, ``at most``, ``most of``, ``many times``, nor after
    a possessive (``his most creative work``, ``their many tastes``), nor ``some`` (``ate some
    bread`` says that bread was eaten)."""
    return _cut(sentence, _QUANTIFIER.search(sentence))
