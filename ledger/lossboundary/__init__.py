"""The loss boundary of a transformation: what a compression, summary, deduplication or
translation of evidence may remove, what it must keep, and the check of its output against its
inputs (:func:`check_loss`).

One principle decides every must-keep item: a figure or a date of the inputs survives when the
output writes the same figure or date; any other must-keep item is the clause that carries its
cue, and survives when one sentence of the output carries as many cues of the same kind and
every content word of that clause. The readers are the commit gate's (:mod:`ledger.gate.anchors` for
figures and dates, :mod:`ledger.gate.lexicon` for words, stems and cues), so a figure is the
same figure here as in a claim check. See docs/receipts.md, "Transformations".
"""

from __future__ import annotations

from ledger.lossboundary.check import (
    CHECKER,
    InputText,
    LossReport,
    check_loss,
)
from ledger.lossboundary.items import MustKeepItem, must_keep_items
from ledger.lossboundary.vocabulary import MayRemove, MustKeep

__all__ = [
    "CHECKER",
    "InputText",
    "LossReport",
    "MayRemove",
    "MustKeep",
    "MustKeepItem",
    "check_loss",
    "must_keep_items",
]
