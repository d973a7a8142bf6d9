"""SummEdits dev edits read as transformations of the summary they edited: an edit that
removes a negation loses a must-keep item and is refused, every one (skips without the shared
data)."""

from __future__ import annotations

import pytest

from benchmarks.eval_cases import data_dir
from benchmarks.loss_boundary_eval import cases
from ledger.lossboundary import InputText, MustKeep, check_loss


def test_every_summedits_edit_that_removes_a_negation_is_refused() -> None:
    folder = data_dir()
    if folder is None:
        pytest.skip("the shared data folder is absent")
    removed = [(seed, edited) for kind, seed, edited in cases(folder) if kind == "negation_removed"]

    accepted = [
        edited
        for seed, edited in removed
        if check_loss([InputText("seed", seed)], edited, list(MustKeep)).kept
    ]

    assert removed
    assert accepted == []
