"""Cue words of the polarity check: negation, hedging, and direction axes with two sides.

Words are matched as lower-case tokens (``n't`` is a token of its own). A direction axis pairs
words whose swap reverses a statement's meaning; each group lists its inflected forms because
the polarity check compares surface tokens, not stems.
"""

from __future__ import annotations

from ledger.gate._words import word_set

NEGATIONS = word_set(
    """
    not no never none nor neither n't cannot without nobody nothing nowhere except unless
    """
)
"""Tokens that negate or exclude what follows them."""

HEDGES = word_set(
    """
    may might could possibly possible perhaps probably likely unlikely approximately roughly
    nearly almost estimated estimate estimates reportedly allegedly apparently seemingly
    potentially presumably supposedly expected expects anticipated uncertain unclear
    suggests suggested appears appear seems seem suggest suggesting expect expecting
    anticipate anticipates anticipating
    projected projection projections forecast forecasts forecasted predicted predicts
    prediction predict predicting budgeted preliminary provisional provisionally tentative
    tentatively purportedly arguably plausibly ostensibly conceivably reputedly forma
    """
)
"""Tokens that make a statement uncertain or approximate; a forecast, projection, prediction,
budget, or a preliminary, provisional or tentative figure is not yet what happened
(``Revenue was $4.5 million`` over ``Revenue is projected to be $4.5 million``), nor is a
``pro forma`` figure (``forma``: what would have been, had an acquisition closed earlier). Not
``target``, ``guidance`` or ``outlook``, which name things as often (``the acquisition
target``, ``under the guidance of``)."""

_AXES: dict[str, tuple[str, str]] = {
    "change": (
        "rise rises rose risen rising increase increases increased increasing grow grows grew "
        "grown growing growth gain gains gained gaining climb climbs climbed jump jumps jumped "
        "up higher highest exceed exceeds exceeded exceeding surge surged improve improves "
        "improved improving expand expands expanded expansion upward above",
        "fall falls fell fallen falling decrease decreases decreased decreasing decline declines "
        "declined declining shrink shrinks shrank shrunk shrinking loses losing drop drops "
        "dropped dropping down lower lowest miss misses missed worsen worsens worsened worsening "
        "contract contracted contraction downward below plunge plunged slump slumped",
    ),
    "amount": ("more most greater larger largest many", "less least fewer smaller smallest few"),
    "sign": ("positive profit profits profitable surplus", "negative loss losses deficit"),
    "outcome": (
        "win wins won winning success successful succeed succeeded victory",
        "lose lost failure unsuccessful fail failed defeat defeated",
    ),
    "consent": (
        "accept accepts accepted approve approves approved approval agree agrees agreed allow "
        "allows allowed allowing permit permitted support supports supported supporting",
        "reject rejects rejected rejecting deny denies denied refuse refuses refused disapprove "
        "disapproved disagree disagreed ban bans banned forbid forbade forbidden prohibit "
        "prohibited oppose opposes opposed opposing",
    ),
    "state": (
        "open opens opened opening start starts started begin begins began beginning launch "
        "launched",
        "close closes closed closing end ends ended ending stop stops stopped shut",
    ),
    "quality": (
        "good better best strong stronger strongest easy easier easiest safe safer happy",
        "bad worse worst weak weaker weakest hard harder hardest difficult unsafe dangerous sad "
        "unhappy",
    ),
    "time": (
        "before earlier earliest first early past previous",
        "after later latest last late future next",
    ),
    "membership": (
        "include includes included including add adds added join joins joined buy buys bought "
        "hire hired",
        "exclude excludes excluded excluding remove removes removed leave leaves left sell sells "
        "sold fire fired",
    ),
    "truth": (
        "true correct confirm confirms confirmed legal guilty",
        "false incorrect wrong illegal innocent",
    ),
    "size": (
        "big bigger biggest large long longer longest high rich wide maximum major",
        "small short shorter shortest low poor narrow minimum minor tiny",
    ),
    "age": ("old older oldest", "young younger youngest new newer newest"),
}

DIRECTIONS: dict[str, tuple[str, int]] = {
    word: (axis, side)
    for axis, (plus, minus) in _AXES.items()
    for side, words in ((1, plus), (-1, minus))
    for word in words.split()
}
"""Each direction word's axis and side (``+1`` or ``-1``)."""
