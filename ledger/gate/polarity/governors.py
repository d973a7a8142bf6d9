"""Predicates that govern the next matched word without making it happen.

A span that says ``tried to approve``, ``plans to merge``, ``considered resigning`` or
``helps cure`` says it was attempted, intended or considered; a claim that writes
``approved`` (``merged``, ``resigned``, ``cures``) states it as done: :func:`governing`
finds the governor, :mod:`ledger.gate.polarity.stretch` fails it as ``hedge_mismatch``.
Implicatives whose infinitive did happen (``managed to close``, ``was forced to sell``) and
prepositions' heads (``due to``) govern nothing; a governor that negates (``failed to``) is a
negation cue of :mod:`ledger.gate.alignment.words` instead.
"""

from __future__ import annotations

from collections.abc import Sequence

from ledger.gate.alignment.words import Kind, Word
from ledger.gate.lexicon.words import word_set

PREPOSITIONAL = word_set(
    """
    due according compared relative prior related attributable owing thanks addition subject
    pursuant contrary close next similar equal up back opposed respect regard comparison
    response relation reference exposure access return as and or from than
    """
)
"""Words after which ``to`` is a preposition, not the mark of an infinitive (``due to higher
costs``, ``compared to 2022``): the word after it is not governed."""
IMPLICATIVES = word_set(
    """
    manage manages managed managing able forced compelled obliged proceed proceeds proceeded
    continue continues continued begin begins began start starts started went happened dared
    remembered bothered
    """
)
"""Predicates whose infinitive did happen (``managed to close``, ``was forced to sell``,
``went on to win``): a claim may state it as done."""
INTENTIONS = word_set(
    """
    plan plans planned planning want wants wanted hope hopes hoped try tries tried attempt
    attempts attempted seek seeks sought intend intends intended aim aims aimed offer offers
    offered promise promises promised pledge pledges pledged vow vows vowed threaten
    threatens threatened propose proposes proposed agree agrees agreed wish wishes wished
    need needs needed decide decides decided vote votes voted prepare prepares prepared
    struggle struggles struggled strive strives strove
    """
)
"""Predicates that govern an infinitive without making it happen, looked for where
the claim writes the governed verb in the span's own form (``The firms merge`` over ``The firms
plan to merge``): elsewhere a change of form (``approved`` over ``to approve``) tells it."""


GERUND_GOVERNORS = word_set(
    """
    consider considers considered considering contemplate contemplates contemplated discuss
    discusses discussed propose proposes proposed suggest suggests suggested recommend
    recommends recommended mull mulls mulled weigh weighs weighed explore explores explored
    avoid avoids avoided resist resists resisted oppose opposes opposed delay delays delayed
    postpone postpones postponed risk risks risked imagine imagines imagined envisage
    envisages envisaged favor favors favored favour favours favoured
    """
)
"""Predicates that govern a gerund without making it happen (``considered resigning``,
``proposed selling``, ``avoided paying``)."""


BARE_GOVERNORS = word_set("help helps helped helping")
"""Predicates that govern a bare infinitive without making it happen (``helps cure``)."""
LIGHT_VERBS = word_set("be become becomes remain stay reach hit have get")
"""Verbs an infinitive of a span may hold that a claim turns into a state (``aims to become
the largest`` under ``is the largest``)."""
GERUND_LINKS = word_set("about in on to of for toward towards")
"""Prepositions through which a word governs a gerund (``thinking about renewing``,
``interested in renewing``, ``close to agreeing``)."""
FACTIVE_HEADS = word_set(
    """
    succeed succeeds succeeded succeeding proud known famous instrumental credited praised
    celebrated thanked responsible
    """
)
"""Words whose gerund did happen (``succeeded in selling``, ``proud of winning``)."""


def governing(
    claim_part: list[Word], span_part: Sequence[Word], mine: Word, theirs: Word
) -> Word | None:
    """The span word governing ``theirs`` (matched to the claim's ``mine``) as an infinitive
    (``tried`` of ``tried to approve``) or a gerund that the claim's stretch drops, or
    ``None``.

    A gerund (where the claim's word is none) is governed by a word of
    :data:`GERUND_GOVERNORS` (``considered resigning``) or by any word but a factive one
    through a preposition of :data:`GERUND_LINKS` (``thinking about renewing``). For an
    infinitive the claim's stretch has no ``to``, and either the span's stretch is ``to``
    alone (its subject the word matched before it) and the claim changes the verb's form, or
    it ends ``<governor> to`` with a governor that is no preposition's head, negation nor
    implicative (:data:`IMPLICATIVES`), and the claim changes the verb's form or the
    governor is an intention (:data:`INTENTIONS`)."""
    if not span_part or mine.kind is not Kind.WORD:
        return None
    last = span_part[-1]
    gerund = theirs.text.endswith("ing") and not mine.text.endswith("ing")
    if last.text in GERUND_GOVERNORS:
        # ``considered resigning`` under ``resigned``.
        return last if gerund else None
    if last.text in BARE_GOVERNORS:
        # ``helps cure`` under ``cures``.
        return last if mine.text != theirs.text else None
    embedded = _embedded_state(claim_part, span_part) if len(span_part) > 2 else None
    if embedded is not None:
        return embedded
    if gerund and last.text in GERUND_LINKS and len(span_part) > 1:
        # ``thinking about renewing``, ``close to agreeing`` under ``renewed``, ``agreed``.
        head = span_part[-2]
        if head.must and head.text not in FACTIVE_HEADS and not head.negation:
            return head
        return None
    if last.text != "to":
        return None
    for word in claim_part:
        if word.text == "to":
            return None
    if len(span_part) == 1:
        # The infinitive's subject is the matched word before it (``calls for the CEO to
        # resign`` under ``The CEO resigned``): a changed form tells it.
        return last if mine.text != theirs.text else None
    governor = span_part[-2]
    if governor.negation or governor.text in PREPOSITIONAL or governor.text in IMPLICATIVES:
        return None
    if mine.text != theirs.text or governor.text in INTENTIONS:
        return governor
    return None


def _embedded_state(claim_part: list[Word], span_part: Sequence[Word]) -> Word | None:
    """The governor of ``<governor> to <light verb>`` inside the span's stretch (``aims to
    become``, ``is set to become``, ``used to be``) when the claim's stretch has no ``to``."""
    for i in range(1, len(span_part) - 1):
        if span_part[i].text == "to" and span_part[i + 1].text in LIGHT_VERBS:
            governor = span_part[i - 1]
            if (
                governor.negation
                or governor.text in PREPOSITIONAL
                or governor.text in IMPLICATIVES
                or any(w.text == "to" for w in claim_part)
            ):
                return None
            return governor
    return None
