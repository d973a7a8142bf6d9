"""Reading a computational claim: which figure is its result and which operation it names.

The result is the first amount after an operation cue (``fell by 12.6 million``, ``averaged
4.2``, ``a ratio of 1.8``); without a cue it is the claim's last amount and the operation is
left open; only a cue attached to the figure, or a cue heading the subject of ``... is <figure>``
(``The change in other sales was -12.6``), makes the operation explicit. ``total`` alone is
not a cue: in ``total expenses`` it names a line item, not a sum; ``total percentage`` (not
followed by ``change``) is, and names the sum of percentages; nor is a ``weighted average``,
which names a line whose weights are not cited. A *difference* ``from 2018 to
2019`` is a change. Direction words set the sign of a change: ``fell by 12.6`` claims
``-12.6``; so does the one direction a claim names when its cue is not attached to the figure
(``How much did revenue decrease from 2018 to 2019: 45``), unless it also names the other
(``increase / (decrease)``). A negative figure after a direction word is read as written: a
percentage increase of ``-21.9%`` claims ``-21.9%`` (the computation check leaves a downward
word with a negative figure, ``decreased by -45``, a double negative, unverified). A figure in
``percentage points`` or ``points`` (``fell by 2.9 points``) claims a change of two percentages
in points, never a relative change.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from ledger.gate.anchors.numbers import Amount
from ledger.gate.anchors.reading import Reading, read_text
from ledger.gate.lexicon.words import word_set

_GAP = r"(?:[\s,]+(?:by|of|to|was|is|were|are|at|an?|the|amounted|stood|came|in|around|some|"
_GAP += r"total(?:l?ed)?|equal(?:l?ed|s)?|approximately|about)\b)*[\s,:]*"
_CUES: tuple[tuple[str, str, int], ...] = (
    (r"percent(?:age)?\s+(?:change|difference|increase|decrease|growth|decline)",
     "percent_change", 0),
    (r"basis[\s-]points?\s+(?:change|increase|decrease)", "bps", 0),
    (r"(?:fell|decreased|declined|dropped|shrank|contracted|slipped|lost|decrease|decline|"
     r"drop|reduction|fall|down)", "change", -1),
    (r"(?:rose|increased|grew|gained|climbed|jumped|increase|rise|growth|grown|risen|gain"
     r"|up(?!\s+to\b))",
     "change", 1),
    (r"(?:changed?|movement)", "change", 0),
    (r"(?:difference|differ(?:ed|s)?)", "difference", 0),
    (r"(?:total|combined|aggregate)\s+(?:percentage|proportion|share)s?"
     r"(?!\s+(?:change|difference|increase|decrease|growth|decline|points?)\b)",
     "percent_total", 0),
    (r"(?:ratio|times|multiple)", "ratio", 0),
    (r"(?:as\s+an?\s+|a\s+)?(?:percentage|proportion|share|fraction|percent)"
     r"(?:\s*\([a-z\s]{1,24}\))?\s+of", "ratio", 0),
    (r"(?<!weighted[\s-])(?:averaged?|mean|averaging)", "average", 0),
    (r"(?:totall?ed|in\s+total|sum(?:med)?|combined|together|aggregated?|adds?\s+up)", "sum", 0),
)  # fmt: skip
_CUE_PATTERNS = tuple((re.compile(rf"\b{p}\b", re.IGNORECASE), op, sign) for p, op, sign in _CUES)
_CUE_START = re.compile(r"\b(?=(?:" + "|".join(p for p, _, _ in _CUES) + r")\b)", re.IGNORECASE)
"""Where any cue starts (zero-width, so overlapping cues are all found)."""
_LOWER_CUE_PATTERNS = tuple((re.compile(rf"\b{p}\b"), op, sign) for p, op, sign in _CUES)
"""The cue patterns matched case-sensitively, for lower-cased ASCII text: the cues are written
in lower case (without escapes such as ``\\S`` that lower-casing would change), so on ASCII
text they find what the case-insensitive patterns find, several times faster."""
_HEAD_REACH = 24
_COPULA = re.compile(r"\b(?:is|was|are|were|amounted\s+to|stood\s+at|came\s+to)\s*$", re.IGNORECASE)
_QUESTION_OPENING = re.compile(
    r"\s*(?:what|how\s+much|how\s+many)\s+(?:is|was|are|were|did|does|do)?\s*(?:the\s+)?",
    re.IGNORECASE,
)
"""The opening of a claim in question form (``What was the``), before the subject."""
_TRAILING_OF = re.compile(r"^\s*of\b", re.IGNORECASE)
_RESULT_GAP = re.compile(_GAP + r"$", re.IGNORECASE)
_FROM_TO = re.compile(
    r"\bfrom\s+(?:fiscal\s+(?:year\s+)?|FY\s?)?((?:19|20)\d\d)\s+to\s+(?:fiscal\s+(?:year\s+)?|FY\s?)?"
    r"((?:19|20)\d\d)\b",
    re.IGNORECASE,
)
"""``from 2018 to 2019``: the order of the two years a claim compares."""
_POINTS = re.compile(r"\s*(?:percentage\s+)?(?:points?|pts|ppts?|pp)\b", re.IGNORECASE)
"""A unit of percentage points after a figure: ``2.9 percentage points``, ``2.9 points``,
``2.9 pp``."""
_POINTS_UNIT = re.compile(r"(?:points?|pts|ppts?|pp)$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class ClaimedResult:
    """A claim's result figure, the operation it names (or ``None``) and the sign it states.

    ``sign`` is ``+1``/``-1`` when a direction word says which way a change went, ``0``
    otherwise; ``explicit`` is true only when the cue is attached to the figure
    (``fell by 12.6``), not merely somewhere in the claim.
    """

    amount: Amount
    operation: str | None
    sign: int
    explicit: bool = True
    points: bool = False
    """The figure is written in percentage points (``2.9 points``, ``2.9 percentage points``)."""
    of_ratio: bool = False
    """The claim names a ratio (``The change in current ratio``): a change may be one of a
    ratio of two lines."""

    @property
    def target(self) -> float:
        """The signed figure the recomputation must reproduce, in the claim's own units: the
        direction word's sign times the figure as written (``increased -21.9%`` claims
        ``-21.9``)."""
        if self.sign:
            return self.sign * self.amount.mantissa
        return self.amount.mantissa


_RATIO = re.compile(r"\bratio\b", re.IGNORECASE)


def read_claim(claim: str | Reading) -> tuple[ClaimedResult | None, list[Amount]]:
    """The claimed result of a claim (``None`` when it has no amount) and all of its amounts;
    the result notes whether the claim names a ratio."""
    reading = read_text(claim) if isinstance(claim, str) else claim
    result, amounts = _read_claim(reading)
    if result is not None and "atio" in reading.text and _RATIO.search(reading.text):
        result = replace(result, of_ratio=True)
    return result, amounts


def _read_claim(reading: Reading) -> tuple[ClaimedResult | None, list[Amount]]:
    """:func:`read_claim` but for the ratio it names."""
    text = reading.text
    amounts = [_in_points(text, amount) for amount in reading.amounts]
    if not amounts:
        return None, amounts
    cues = _cues(text)
    best: ClaimedResult | None = None
    best_at = len(text) + 1
    for cue, operation, sign, _ in cues:
        for amount in amounts:
            if amount.start < cue.end():
                continue
            gap = text[cue.end() : amount.start]
            if not _RESULT_GAP.match(gap) or len(gap) > 40:
                continue
            if operation == "ratio" and _TRAILING_OF.match(text[amount.end :]):
                continue
            if cue.start() < best_at:
                points = _is_points(amount)
                kind_op = _refine(_ordered_difference(operation, text), amount, points)
                best = ClaimedResult(amount, kind_op, sign, points=points)
                best_at = cue.start()
            break
    if best is not None:
        return best, amounts
    last = amounts[-1]
    if cues:
        # The first cue of the claim (of the first kind in _CUES order where two start
        # together, so "percentage change" beats "percentage"): "The change in X from 2018 to
        # 2019 was -12.6", "The average proportion of X is 52.5%": the cue heads the subject.
        # A cue elsewhere names the operation but neither makes it explicit nor gives a
        # direction.
        found, operation, _, _ = min(cues, key=lambda c: (c[0].start(), c[3]))
        heads = _heads(text, found.start(), last)
        operation = _ordered_difference(operation, text)
        points = _is_points(last)
        return ClaimedResult(
            last, _refine(operation, last, points), _one_direction(operation, cues), heads, points
        ), amounts
    return ClaimedResult(last, None, 0, explicit=False, points=_is_points(last)), amounts


def _heads(text: str, cue_start: int, result: Amount) -> bool:
    """Whether a cue heads the subject whose value the result states: ``The change in X was
    -12.6`` (near the start, the figure after a copula), or, in question form, ``What was the
    change in X: -12.6`` (near the start after the question's opening, the figure after the
    colon that answers it)."""
    before = text[: result.start]
    question = _QUESTION_OPENING.match(text)
    if question is not None and before.rstrip().endswith(":"):
        return cue_start - question.end() <= _HEAD_REACH
    return cue_start <= _HEAD_REACH and bool(_COPULA.search(before))


def _is_points(amount: Amount) -> bool:
    """Whether ``amount`` is written in percentage points."""
    return amount.kind == "percent" and bool(_POINTS_UNIT.search(amount.text))


def _in_points(text: str, amount: Amount) -> Amount:
    """``2.9 points`` or ``2.9 pp`` read as a percentage figure, like ``2.9 percentage
    points``: a change of two percentages stated in points."""
    if amount.kind != "number" or amount.scale or amount.currency:
        return amount
    if _POINTS.match(text, amount.end) is None:
        return amount
    return replace(amount, kind="percent", text=f"{amount.text} points")


def _one_direction(operation: str, cues: list[tuple[re.Match[str], str, int, int]]) -> int:
    """The sign of the direction words of a claim whose cue is not attached to its figure
    (``How much did revenue decrease ...: 45``): ``-1`` or ``+1`` when the claim's operation
    is a change or a difference and its direction words all go one way, ``0`` when there are
    none, both ways are named (``increase / (decrease)``) or the operation is another (``the
    average revenue, broken down by segment``: ``down`` is no direction of an average)."""
    if operation not in ("change", "percent_change", "difference"):
        return 0
    signs = {sign for _, _, sign, _ in cues if sign}
    return signs.pop() if len(signs) == 1 else 0


_CUE_FIRST_WORDS: dict[str, tuple[int, ...]] = {}
"""For each word a cue can begin with, the places in _CUES of the cues that may begin with it
(tested against every pattern in tests/unit/gate/test_claimed.py)."""
for _index, _words in enumerate(
    (
        "percent percentage",
        "basis",
        "fell decreased declined dropped shrank contracted slipped lost decrease decline drop "
        "reduction fall down",
        "rose increased grew gained climbed jumped increase rise growth grown risen up gain",
        "change changed movement",
        "difference differ differed differs",
        "total combined aggregate",
        "ratio times multiple",
        "as a percentage proportion share fraction percent",
        "average averaged mean averaging",
        "totalled totaled in sum summed combined together aggregate aggregated add adds",
    )
):
    for _word in _words.split():
        _CUE_FIRST_WORDS[_word] = (*_CUE_FIRST_WORDS.get(_word, ()), _index)
_LOWER_WORD = re.compile(r"\b[a-z]+")


def _cues(text: str) -> list[tuple[re.Match[str], str, int, int]]:
    """Every cue of ``text`` with its operation, sign and place in _CUES, by position and
    then _CUES order.

    ASCII text is scanned lower-cased, which keeps every position (the matches are only read
    for where they start and end): each word that a cue may begin with
    (:data:`_CUE_FIRST_WORDS`) is tried against the cues that may begin with it. Other text
    is scanned once for where any cue starts, and every cue pattern is tried there. Both give
    the matches a scan with each pattern would give.
    """
    out = []
    if text.isascii():
        text = text.lower()
        for word in _LOWER_WORD.finditer(text):
            indexes = _CUE_FIRST_WORDS.get(word.group())
            if indexes is None:
                continue
            at = word.start()
            for index in indexes:
                pattern, operation, sign = _LOWER_CUE_PATTERNS[index]
                match = pattern.match(text, at)
                if match is not None:
                    out.append((match, operation, sign, index))
        return out
    for start in _CUE_START.finditer(text):
        for index, (pattern, operation, sign) in enumerate(_CUE_PATTERNS):
            match = pattern.match(text, start.start())
            if match is not None:
                out.append((match, operation, sign, index))
    return out


def _ordered_difference(operation: str, text: str) -> str:
    """A *difference* that runs from an earlier year to a later one (``the difference in X
    from 2018 to 2019``) is a change, ``new - old``; any other difference says nothing of
    order."""
    match = _FROM_TO.search(text) if operation == "difference" else None
    return "change" if match and match.group(1) < match.group(2) else operation


def _refine(operation: str, amount: Amount, points: bool = False) -> str:
    """A change stated in percent is a percent change, in percentage points a change in
    points, in basis points a basis-point change."""
    if points and operation in ("change", "percent_change"):
        return "points"
    if operation == "change" and amount.kind == "bps":
        return "bps"
    if operation == "change" and amount.kind == "percent":
        return "percent_change"
    return operation


OPERATION_WORDS = word_set(
    """
    change changed changes difference differences increase increased increases decrease
    decreased decreases rose rise risen fell fall fallen grew grow growth declined decline
    percentage percent ratio average averaged mean sum summed combined totalled totaled
    proportion share times basis points point bps compared between from
    altogether overall absolute relative constitute constitutes constituted constitution
    represent represents represented expressed portion fraction nominal respective across
    much many
    """
)
"""Words naming the arithmetic of a computational claim, ignored by its support score: the
computation check recomputes the operation they name (``much`` and ``many`` ask for an amount
or a count in a claim of question form: ``How much did revenue decrease ...: 45``)."""


_BOUND = re.compile(
    r"\b(?P<word>more\s+than|greater\s+than|over|above|exceeding|in\s+excess\s+of|upwards\s+of"
    r"|at\s+least|no\s+less\s+than|less\s+than|fewer\s+than|under|below|at\s+most"
    r"|no\s+more\s+than|up\s+to)\s*[$\u20ac\u00a3]?\s*$",
    re.IGNORECASE,
)
_BOUNDS = {
    "more than": ">", "greater than": ">", "over": ">", "above": ">", "exceeding": ">",
    "in excess of": ">", "upwards of": ">", "at least": ">=", "no less than": ">=",
    "less than": "<", "fewer than": "<", "under": "<", "below": "<", "at most": "<=",
    "no more than": "<=", "up to": "<=",
}  # fmt: skip


def claimed_bound(text: str, amount: Amount) -> str | None:
    """The comparison a bound word right before the claimed figure asks for (``fell by more
    than 40``: ``>``; ``at least``: ``>=``; ``less than``: ``<``; ``up to``: ``<=``), or
    ``None`` for a figure stated exactly."""
    found = _BOUND.search(text, 0, amount.start)
    if found is None:
        return None
    return _BOUNDS[" ".join(found["word"].lower().split())]


def meets(value: float, target: float, allowed: float, bound: str | None) -> bool:
    """Whether a recomputed ``value`` makes the claimed ``target`` true: within ``allowed``
    of it when stated exactly; otherwise on the side the bound says, by magnitude and with
    the target's sign (``fell by more than 40`` is true of a fall of 45, false of a fall of
    40 or of a rise of 45; ``less than 5`` is also true of 0)."""
    if bound is None:
        return abs(value - target) <= allowed
    if value and target and (value > 0) != (target > 0):
        return False
    size, limit = abs(value), abs(target)
    # Figures such as 44.1 - 56.7 carry a float error of about 1e-15: equal within 1e-9.
    near = 1e-9 * max(size, limit, 1.0)
    if bound == ">":
        return bool(value) and size > limit + near
    if bound == ">=":
        return bool(value) and size >= limit - near
    if bound == "<":
        return size < limit - near
    return size <= limit + near
