"""Cue words of the polarity check: negation, hedging, and direction axes with two sides.

Words are matched as lower-case tokens (``n't`` is a token of its own). A direction axis pairs
words whose swap reverses a statement's meaning; each group lists its inflected forms because
the polarity check compares surface tokens, not stems.
"""

from __future__ import annotations

from ledger.gate.lexicon.words import word_set

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


NEGATION_CUES = (
    NEGATIONS
    | {"non"}
    | word_set("deny denies denied denying excluding lack lacks lacked lacking absence absent")
)
"""Negation cues of the alignment: the polarity cues, the prefix ``non-`` (a hyphenated
``non-binding`` reads ``non binding``), ``deny`` (``She denied that the deal closed`` does
not say that it closed), ``excluding`` (``Revenue excluding acquisitions rose`` is not what
revenue did) and ``lack`` and ``absence`` (``found a lack of evidence`` found none)."""

NEGATIVE_IMPLICATIVES = word_set(
    """
    fail fails failed failing refuse refuses refused refusing neglect neglects neglected
    neglecting forget forgets forgot forgotten forgetting omit omits omitted omitting unable
    yet cease ceases ceased decline declines declined declining
    """
)
"""Words that negate the verb of an infinitive they govern: ``failed to approve``, ``was
unable to pay``, ``has yet to close``, ``declined to comment`` say that it did not happen. A
negation cue to the alignment only there (:func:`_implicatives`): ``the failed bank``, ``yet``
as a conjunction and ``declined to $5 million`` negate nothing."""
PREVENTIVES = word_set(
    """
    prevent prevents prevented preventing block blocks blocked blocking bar bars barred
    barring ban bans banned banning prohibit prohibits prohibited prohibiting stop stops
    stopped stopping keep keeps kept keeping refrain refrains refrained refraining restrain
    restrains restrained restraining preclude precludes precluded precluding deter deters
    deterred deterring
    """
)
"""Words that negate a gerund they govern through ``from``: ``was blocked from closing``,
``refrained from buying`` say that it did not happen."""

MODALS = word_set("will would")
"""Future and conditional modals: a hedge to the alignment (``The board approved the plan.``
over ``The board will approve the plan.`` turns a plan into a fact). Not to the window of a
computational claim's polarity check (:mod:`ledger.gate.polarity.window`)."""

PLAIN, PLANNED, HEDGED = 0, 1, 2
"""How far a text is hedged, for the alignment's stretches and the polarity window alike: not
at all, by a modal only (:data:`MODALS`, which covers only the other side's modals: ``will
rise`` is not ``may rise``), or by another hedge (which covers every hedge of the other
side)."""

ALIGNMENT_HEDGES = word_set(
    """
    sometimes occasionally often frequently periodically intermittently sporadically rarely
    seldom hardly barely scarcely infrequently doubt doubts doubted doubting whether must
    should shall ought until till claim claims claimed alleges alleged believe believes
    believed think thinks thought hope hopes hoping speculate speculates speculated
    speculating
    """
)
"""Hedges of the alignment only (the window check of computational claims keeps the polarity
cues' list): how often (``The fee is sometimes charged`` is not ``The fee is charged``) and
doubt (``The CEO doubted that sales rose``, ``Analysts questioned whether sales rose``) and
obligation (``The fee must be paid``, ``Kate should have sent the slides`` says nothing of
what was done), a state that ended (``was the largest until 2020``) and belief or claim
(``The company claims the drug cures ...``), hope and speculation (``We hope that sales
rose``; ``hoped`` is left to the infinitive it governs, ``hoped to approve``)."""

PERMISSIONS = word_set("can allowed permitted")
"""A claim's modals of permission or possibility besides the hedges (``may``, ``might``,
``could`` are hedges already): ``can``, and ``allowed`` or ``permitted`` before ``to``. A
permission is no hedge of fact, so a claim that writes one keeps the span's ``may``
(``Employees can work remotely`` over ``Employees may work remotely``); read in claims only
(:func:`ledger.gate.alignment.words.permissions`): a span's ``can`` says what is possible or
allowed as a fact, which a claim may restate."""

CONDITIONS = word_set("if unless")
"""Words that make a statement conditional: a hedge to the alignment, and read after the
claim's last aligned word too (``The company pays a dividend.`` over ``The company pays a
dividend if profits rise.``; see :func:`ledger.gate.alignment.reach.trailing`)."""

STRICT_HEDGES = word_set(
    """
    unlikely uncertain unclear almost nearly rarely seldom hardly barely scarcely infrequently
    doubt doubts doubted doubting must should shall ought claim claims claimed alleges alleged
    believe believes believed think thinks thought
    """
)
"""Hedges that negate: a claim must say them where its span does, not merely be hedged
(``The deal almost closed`` says that it did not; ``nearly 500`` is fewer than 500;
``rarely`` is nearly never; a doubt is no assertion; what must be is not what may be)."""


PARTITIVES = word_set("half part parts portion partly partially fraction")
"""Words that say a part of what follows them (``sold half its stake``, ``paid in part``)."""
