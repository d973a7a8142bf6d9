"""Numbers and dates as they are written in claims, spans and table cells.

:func:`numbers` finds amounts with their sign, currency, scale word and unit; :func:`dates`
finds calendar dates and years and gives each an ISO-like key (``2024-01-05``, ``2024-01``,
``2024``). A bare four-digit integer between 1500 and 2099 with no currency, unit or scale is a
year, never an amount. So is a letter-spaced year, as PDF extraction leaves table headers:
exactly four single digits separated by single spaces that make a year from 1900 to 2099
(``2 0 1 8``), with no other digit, letter or separator joined to it. Numbers inside dates and
identifiers are not amounts either: callers pass the spans of text already claimed by other
anchors as ``masked``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

_MONTHS = {
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
    "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12,
}  # fmt: skip
_MONTH = (
    r"(?P<month>(?:January|February|March|April|May|June|July|August|September|October|November"
    r"|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\b\.?)"
)
_DATE_PATTERNS = (
    re.compile(r"\b(?P<year>\d{4})-(?P<mnum>\d{2})-(?P<day>\d{2})\b"),
    re.compile(
        rf"\b(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH},?\s+(?P<year>\d{{4}})\b"
    ),
    re.compile(rf"{_MONTH}\s+(?P<day>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<year>\d{{4}})\b"),
    re.compile(rf"{_MONTH},?\s+(?P<year>\d{{4}})\b"),
    re.compile(rf"{_MONTH}\s+(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\b(?![.,]\d)"),
    re.compile(rf"(?<![\d.,])\b(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}"),
    re.compile(
        r"(?=[12])(?:(?<![\w$€£¥.,])|(?<=(?<![\d.])(?:1[5-9]|20)\d\d,))"
        r"(?P<year>1[5-9]\d\d|20\d\d)"
        r"(?![\w%]|\.\d|,(?!(?:1[5-9]|20)\d\d\b)\d)"
    ),
    re.compile(
        r"(?<![\w.,$€£¥])(?<!(?<![\w.,])\d )(?=[12] )"
        r"(?P<year>(?:1 9|2 0) \d \d)(?![\w%]| \d|[.,]\d)"
    ),
)
_SPACED_YEAR = _DATE_PATTERNS[-1]
_PLAIN_DATE_PATTERNS = (_DATE_PATTERNS[0], _DATE_PATTERNS[-2], _SPACED_YEAR)
"""The patterns without a month name: ISO dates, bare years and letter-spaced years."""
_NUMBER = re.compile(
    r"(?P<open>\()?"
    r"(?P<cur>US\$|[$€£¥₹]|\b(?:USD|EUR|GBP|JPY|CHF|CAD|AUD|CNY|INR)\b)?\s*"
    r"(?P<sign>(?<![\w.,])[-\u2212\u2013])?\s*"
    r"(?P<cur2>[$€£¥])?\s*"
    r"(?<![\w.,])(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)(?![\d,]*\.\d)"
    r"(?P<close>\))?"
    r"(?:(?P<short>bn|mn|m|k|b)\b|\s*(?P<scale>thousand|million|billion|trillion)s?\b)?"
    r"(?:\s*(?P<unit>%|percent\b|per\s?cent\b|percentage\s+points?\b|basis\s+points?\b|bps\b|bp\b"
    r"|USD\b|EUR\b|GBP\b|dollars?\b|euros?\b|pounds?\b))?",
    re.IGNORECASE,
)
_SCALES = {
    "thousand": 1e3, "k": 1e3, "million": 1e6, "m": 1e6, "mn": 1e6,
    "billion": 1e9, "bn": 1e9, "b": 1e9, "trillion": 1e12,
}  # fmt: skip
_CURRENCIES = {
    "$": "USD", "us$": "USD", "usd": "USD", "dollar": "USD", "dollars": "USD",
    "€": "EUR", "eur": "EUR", "euro": "EUR", "euros": "EUR",
    "£": "GBP", "gbp": "GBP", "pound": "GBP", "pounds": "GBP",
    "¥": "JPY", "jpy": "JPY", "chf": "CHF", "cad": "CAD", "aud": "AUD", "cny": "CNY",
    "inr": "INR", "₹": "INR",
}  # fmt: skip
_CONTEXT_SCALE = re.compile(
    r"\bin\s+(?:US\$\s*|\$\s*|€\s*|£\s*)?(?P<word>thousands|millions|billions)\b"
    r"|(?P<abbr>[$€£]?\s?'000|\$m\b|€m\b|£m\b)",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Amount:
    """One number as written: ``value`` applies sign and scale word, ``mantissa`` only the sign.

    ``kind`` is ``"percent"`` (also percentage points), ``"bps"`` or ``"number"``; ``decimals``
    counts the digits written after the decimal point; ``bracketed`` says the figure was written
    in parentheses, which in financial tables usually, but not always, means negative.
    """

    text: str
    start: int
    end: int
    value: float
    mantissa: float
    scale: float | None
    kind: str
    currency: str | None
    decimals: int
    bracketed: bool = False


@dataclass(frozen=True, slots=True)
class DateMention:
    """A calendar date or year: ``key`` is ``YYYY-MM-DD``, ``YYYY-MM`` or ``YYYY``, or
    ``--MM-DD`` for a day of a month written without its year (``June 30``, ``1 April``)."""

    text: str
    start: int
    end: int
    key: str


_MONTH_ABBREVIATIONS = tuple(name.capitalize() for name in _MONTHS)
_MONTH_ANYWHERE = re.compile("|".join(_MONTH_ABBREVIATIONS))
_MONTH_HINT = re.compile(r"\b(?:" + "|".join(_MONTH_ABBREVIATIONS) + ")")
_DIGIT_RUN = re.compile(r"\d+")
_SPAN = re.Match.span


def digit_runs(text: str) -> tuple[tuple[int, int], ...]:
    """Where each run of digits of ``text`` starts and ends: one scan that the readers of
    dates, amounts and identifiers share (each would otherwise scan the text for digits)."""
    return tuple(map(_SPAN, _DIGIT_RUN.finditer(text)))


def dates(text: str, runs: tuple[tuple[int, int], ...] | None = None) -> list[DateMention]:
    """Every date and year in ``text``, longest forms first, without overlaps (``runs``:
    the text's :func:`digit_runs`, when the caller already has them)."""
    found: list[DateMention] = []
    if runs is None:
        runs = digit_runs(text)
    if not runs:
        return found
    taken: list[tuple[int, int]] = []
    # The month-name patterns only run when a month name stands next to a digit. The others
    # start at a run of digits of their own length: four (an ISO date, a year) or one (a
    # letter-spaced year); other runs are not tried.
    patterns = _DATE_PATTERNS if _has_month_hint(text) else _PLAIN_DATE_PATTERNS
    fours = [run for run in runs if run[1] - run[0] == 4]
    ones = [run for run in runs if run[1] - run[0] == 1]
    for pattern in patterns:
        if pattern is _SPACED_YEAR:
            matches: Iterator[re.Match[str]] = _run_matches(pattern, text, ones)
        elif pattern in _PLAIN_DATE_PATTERNS:
            matches = _run_matches(pattern, text, fours)
        else:
            matches = pattern.finditer(text)
        for match in matches:
            if _overlaps(match.start(), match.end(), taken):
                continue
            key = _date_key(match)
            if key is not None:
                taken.append((match.start(), match.end()))
                found.append(DateMention(match.group(0), match.start(), match.end(), key))
    if len(found) > 1:
        found.sort(key=lambda d: d.start)
    return found


def _run_matches(
    pattern: re.Pattern[str], text: str, runs: Sequence[tuple[int, int]]
) -> Iterator[re.Match[str]]:
    """The matches of a date pattern without a month name, tried only where a run of digits
    starts: each begins with a digit that no digit precedes (``\\b`` or a lookbehind that
    excludes word characters, or a comma), so these are the matches of scanning the text."""
    end = 0
    for start, _ in runs:
        if start < end:
            continue
        match = pattern.match(text, start)
        if match is not None:
            yield match
            end = match.end()


def _has_month_hint(text: str) -> bool:
    """Whether a month name may start in ``text``. The plain alternation rules most texts out
    first: the regex engine skips quickly to the letters it can start with, while the hint
    pattern, which begins with ``\\b``, is tried at every position."""
    return bool(_MONTH_ANYWHERE.search(text) and _MONTH_HINT.search(text))


def _date_key(match: re.Match[str]) -> str | None:
    """The ISO-like key of a date match, or ``None`` for an impossible month or day."""
    groups = match.groupdict()
    # A letter-spaced year (``2 0 1 8``, from PDF extraction) is keyed without its spaces.
    year = (groups.get("year") or "-").replace(" ", "")
    month_name = groups.get("month")
    if month_name:
        month = _MONTHS[month_name[:3].lower()]
    elif groups.get("mnum"):
        month = int(groups["mnum"])
    else:
        return year
    if not 1 <= month <= 12:
        return None
    day = groups.get("day")
    if day is None:
        return f"{year}-{month:02d}"
    if not 1 <= int(day) <= 31:
        return None
    return f"{year}-{month:02d}-{int(day):02d}"


def numbers(
    text: str,
    masked: list[tuple[int, int]] | None = None,
    found_dates: list[DateMention] | None = None,
    runs: tuple[tuple[int, int], ...] | None = None,
) -> list[Amount]:
    """Every amount in ``text`` outside the ``masked`` ranges (dates are always masked;
    ``found_dates`` are the text's :func:`dates` and ``runs`` its :func:`digit_runs` when the
    caller already has them)."""
    if runs is None:
        runs = digit_runs(text)
    if not runs:
        return []
    if found_dates is None:
        found_dates = dates(text, runs)
    blocked = [(d.start, d.end) for d in found_dates]
    if masked:
        blocked = masked + blocked
    out: list[Amount] = []
    for match in _number_matches(text, runs):
        num_start, num_end = match.span("num")
        if _overlaps(num_start, num_end, blocked):
            continue
        out.append(_amount(match))
    return out


_PREFIX_SYMBOLS = frozenset("(.$\u20ac\u00a3\u00a5\u20b9-\u2212\u2013")
"""Characters a number's prefix (bracket, currency symbol, sign, leading point) is made of,
besides spaces and the letters of a currency code."""


def _prefix_start(text: str, at: int, floor: int) -> int:
    """The earliest position, from ``floor`` on, at which the prefix of a number whose digits
    begin at ``at`` can begin: back over spaces and prefix symbols, then over up to three
    letters when they may begin a currency (:func:`_may_open_currency`), and over a bracket
    that opens before them."""
    start = at
    while start > floor and (text[start - 1].isspace() or text[start - 1] in _PREFIX_SYMBOLS):
        start -= 1
    letters = start
    while letters > floor and start - letters < 3 and text[letters - 1].isalpha():
        letters -= 1
    if letters < start and _may_open_currency(text[letters:start]):
        # A bracket may open before the currency code: ``(USD 1,102)``.
        return letters - 1 if letters > floor and text[letters - 1] == "(" else letters
    return start


_CURRENCY_CODES = frozenset(["USD", "EUR", "GBP", "JPY", "CHF", "CAD", "AUD", "CNY", "INR"])
"""The currency codes of :data:`_NUMBER`, which may begin a match with letters."""


def _may_open_currency(letters: str) -> bool:
    """Whether a match of :data:`_NUMBER` may begin among ``letters``: only at a currency code
    or ``US$``. At any other letter every part of the pattern fails (a letter is no bracket,
    sign, symbol, space or digit), so a search need not try them: the word before a figure
    (``declined 2.2%``) costs nothing. Letters outside ASCII, which may match a code when case
    is ignored, are always tried."""
    if not letters.isascii():
        return True
    upper = letters.upper()
    return "US" in upper or upper in _CURRENCY_CODES


def _number_matches(
    text: str, runs: tuple[tuple[int, int], ...] | None = None
) -> Iterator[re.Match[str]]:
    """The matches of the number pattern, searched for only from just before each run of
    digits (``runs``: the text's :func:`digit_runs`): the same matches as scanning the whole
    text, without trying every position."""
    done = 0
    for start, _ in digit_runs(text) if runs is None else runs:
        if start < done:
            continue
        match = _NUMBER.search(text, _prefix_start(text, start, done))
        if match is None:
            return
        yield match
        done = max(match.end(), match.start() + 1)


def _amount(match: re.Match[str]) -> Amount:
    """Build an :class:`Amount` from one match of the number pattern."""
    number, opened, closed, sign, short, scale_word, unit_text, currency_1, currency_2 = (
        match.group("num", "open", "close", "sign", "short", "scale", "unit", "cur", "cur2")
    )
    digits = number.replace(",", "")
    mantissa = float(digits)
    bracketed = bool(opened and closed)
    negative = bool(sign) or bracketed
    if negative:
        mantissa = -mantissa
    word = (short or scale_word or "").lower()
    scale = _SCALES.get(word)
    unit = (unit_text or "").lower()
    if unit.startswith(("%", "percent", "per")):
        kind = "percent"
    elif unit.startswith(("basis", "bp")):
        kind = "bps"
    else:
        kind = "number"
    currency_text = (currency_1 or currency_2 or "").lower()
    if not currency_text and kind == "number":
        currency_text = unit
    currency = _CURRENCIES.get(currency_text)
    decimals = len(digits.split(".")[1]) if "." in digits else 0
    start = match.start()
    if opened and not closed:
        start += 1
    return Amount(
        text=match.group(0)[start - match.start() :].strip(),
        start=start,
        end=match.end(),
        value=mantissa * (scale or 1.0),
        mantissa=mantissa,
        scale=scale,
        kind=kind,
        currency=currency,
        decimals=decimals,
        bracketed=bracketed,
    )


def context_scale(text: str) -> float | None:
    """The scale a table or passage declares for its figures (``in thousands``, ``$'000``)."""
    match = _CONTEXT_SCALE.search(text)
    if match is None:
        return None
    word = (match.group("word") or "").lower()
    if word:
        return _SCALES[word[:-1]]
    abbr = match.group("abbr").lower()
    return 1e3 if "000" in abbr else 1e6


def close(a: float, b: float, rel: float = 1e-9) -> bool:
    """Whether two values are equal up to floating-point noise."""
    return math.isclose(a, b, rel_tol=rel, abs_tol=1e-12)


def _overlaps(start: int, end: int, ranges: list[tuple[int, int]]) -> bool:
    """Whether ``[start, end)`` overlaps any of ``ranges``."""
    # A loop, not any() over a generator: it runs for every figure and date of every claim.
    for r_start, r_end in ranges:  # noqa: SIM110
        if start < r_end and r_start < end:
            return True
    return False


FISCAL_CLAIM = re.compile(r"\bfiscal\b|\bFY", re.IGNORECASE)
"""A claim that names fiscal years (``fiscal 2019``, ``fiscal years 2017-2019``, ``FY19``)."""


def fiscal_year(key: str) -> int:
    """The fiscal year a period ending on the date ``key`` (``YYYY-MM-DD``, or a year) closes:
    its own year, but for a date in the first week of January the year before: a 52/53-week
    fiscal year ends on the same weekday near December 31 (``January 3, 2020`` closes fiscal
    2019, ``December 28, 2018`` fiscal 2018)."""
    year = int(key[:4])
    if len(key) == 10 and key[5:7] == "01" and int(key[8:10]) <= 7:
        return year - 1
    return year
