"""The expiry process: exactly-once expiries across crashes and restarts, on both backends."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from api.services import open_ledger
from api.settings import Settings
from ledger.gate import Binding, ClaimDraft, GateConfig
from ledger.receipts.expiry_desk import ExpiryDesk
from ledger.receipts.receipt import Receipt
from ledger.receipts.receipt_desk import CommitRequest, ReceiptDesk, ReceiptRequest
from ledger.registry.source_desk import SourceDraft
from ledger.runtime import LedgerRuntime
from processes.expiry import ExpiryProcess
from projections.service import ReadSide

TEXT = "Revenue rose 2.2% to $4.5 million in 2023. The board met twice."


def _desk(runtime: LedgerRuntime, read_side: ReadSide) -> ReceiptDesk:
    """The receipt desk over ``read_side``'s verified spans."""
    return ReceiptDesk(
        runtime.ledger,
        read_side.span_resolver,
        GateConfig(),
        ExpiryDesk(runtime.ledger),
        runtime.policies,
        runtime.components,
    )


def _setup(runtime: LedgerRuntime, receipts: int) -> tuple[ReadSide, list[str]]:
    """A source and ``receipts`` receipts, each with one claim bound to its version 1."""
    read_side = ReadSide(runtime.ledger, runtime.database)
    version = runtime.sources.register(
        "src", SourceDraft(TEXT, "text/plain", "Src"), "derived", "t"
    )
    read_side.catch_up()
    span = version.spans[0]
    desk = _desk(runtime, read_side)
    ids = []
    for n in range(receipts):
        receipt, _ = desk.open(
            ReceiptRequest(
                f"q{n}",
                "u",
                "p",
                "default",
                "long_context",
                {"name": "m", "version": "1"},
                [],
                [span.span_id],
                [],
            ),
            "t",
        )
        claim = ClaimDraft(span.text, bindings=(Binding(span.span_id),))
        desk.commit(receipt.receipt_id, CommitRequest([claim], fingerprint=str(n)), "t", None)
        ids.append(receipt.receipt_id)
    read_side.catch_up()
    return read_side, ids


def _expiry_causes(runtime: LedgerRuntime) -> Counter[tuple[str, str]]:
    counts: Counter[tuple[str, str]] = Counter()
    start = 0
    while True:
        page = runtime.ledger.recorder.select_notifications(
            start=start, limit=500, topics=[Receipt.Expired.TOPIC], inclusive_of_start=False
        )
        for notification in page:
            event = runtime.ledger.mapper.to_domain_event(notification)
            counts[(str(notification.originator_id), event.cause)] += 1  # type: ignore[attr-defined]
        if len(page) < 500:
            return counts
        start = page[-1].id


def test_a_crash_after_the_effects_but_before_the_position_repeats_nothing(
    runtime: LedgerRuntime, monkeypatch: pytest.MonkeyPatch
) -> None:
    read_side, _ = _setup(runtime, 5)
    supersession = runtime.sources.add_version(
        "src", SourceDraft("New text.", "text/plain", "Src"), "t"
    ).position
    process = ExpiryProcess(read_side, ExpiryDesk(read_side.ledger))
    save = process._save

    def crash_after_supersession(start: int, end: int) -> None:
        if end == supersession:  # its five expiries are written; its position is not
            raise RuntimeError("killed")
        save(start, end)

    monkeypatch.setattr(process, "_save", crash_after_supersession)
    with pytest.raises(RuntimeError, match="killed"):
        process.run_once()
    assert process.expired == 5
    monkeypatch.undo()
    restarted = ExpiryProcess(read_side, ExpiryDesk(read_side.ledger))
    restarted.run_once()

    counts = _expiry_causes(runtime)
    assert len(counts) == 5
    assert set(counts.values()) == {1}
    assert restarted.expired == 0  # the first run already recorded every expiry
    read_side.close()


def test_killing_and_restarting_the_process_midway_expires_each_receipt_once(
    settings_env: Settings,
) -> None:
    runtime = open_ledger(settings_env)
    read_side, _ = _setup(runtime, 150)
    read_side.close()
    runtime.sources.add_version("src", SourceDraft("New text.", "text/plain", "Src"), "t")
    cli = Path(sys.executable).parent / "provledger"

    process = subprocess.Popen([str(cli), "expire", "--interval", "0.05"], env=dict(os.environ))
    seen = 0
    for _ in range(2000):  # bounded: wait for the first expiries, then kill mid-way
        seen = sum(_expiry_causes(runtime).values())
        if seen:
            break
        time.sleep(0.01)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=20)
    assert 0 < seen < 150  # killed mid-way: some receipts expired, most not yet

    restarted = subprocess.run(
        [str(cli), "expire", "--once"],
        check=False,
        env=dict(os.environ),
        capture_output=True,
        text=True,
    )
    assert restarted.returncode == 0, restarted.stderr

    counts = _expiry_causes(runtime)
    runtime.close()
    assert len(counts) == 150
    assert set(counts.values()) == {1}


def test_claims_committed_on_an_already_superseded_version_expire_at_once(
    runtime: LedgerRuntime,
) -> None:
    read_side, first = _setup(runtime, 2)
    desk = _desk(runtime, read_side)
    span_id = next(iter(desk.get(first[0]).pool_index))  # the first sentence of version 1
    late, _ = desk.open(
        ReceiptRequest(
            "late",
            "u",
            "p",
            "default",
            "long_context",
            {"name": "m", "version": "1"},
            [],
            [span_id],
            [],
        ),
        "t",
    )
    process = ExpiryProcess(read_side, ExpiryDesk(read_side.ledger))
    process.run_once()
    runtime.sources.add_version("src", SourceDraft("New text.", "text/plain", "Src"), "t")
    process.run_once()  # the two receipts with claims expire; the late one has none yet
    assert process.expired == 2

    claim = ClaimDraft(TEXT.split(". ", maxsplit=1)[0] + ".", bindings=(Binding(span_id),))
    committed = desk.commit(late.receipt_id, CommitRequest([claim], fingerprint="late"), "t", None)
    assert committed.accepted  # its sealed pool holds version 1, in force at its as_of
    process.run_once()

    counts = _expiry_causes(runtime)
    assert process.expired == 3
    receipt = desk.get(late.receipt_id)
    assert [(e["reason"], e["cause"]) for e in receipt.expiries] == [
        ("source_superseded", f"n{committed.position}")
    ]
    assert counts[(str(receipt.id), f"n{committed.position}")] == 1
    read_side.close()


def test_a_pass_ends_at_the_log_end_it_found_and_leaves_later_commits_to_the_next(
    runtime: LedgerRuntime, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under a steady stream of commits a pass must not chase the writer one commit at a
    time (a catch-up and a tracking write per commit); what arrives during it waits."""
    read_side, ids = _setup(runtime, 2)
    desk = _desk(runtime, read_side)
    span_id = next(iter(desk.get(ids[0]).pool_index))
    claim = ClaimDraft(TEXT.split(". ", maxsplit=1)[0] + ".", bindings=(Binding(span_id),))
    process = ExpiryProcess(read_side, ExpiryDesk(read_side.ledger))
    written: list[int] = []
    catch_up = read_side.registry.catch_up  # what a pass catches up before it reads

    def commit_during_the_pass() -> int:
        if not written:  # another request commits while the pass is under way
            result = desk.commit(ids[1], CommitRequest([claim], fingerprint="x"), "t", None)
            written.append(result.position)
        return catch_up()

    monkeypatch.setattr(read_side.registry, "catch_up", commit_during_the_pass)
    first = process.run_once()
    assert written
    assert first < written[0]
    monkeypatch.undo()
    assert process.run_once() == written[0]
    read_side.close()


def test_a_pass_moves_its_position_past_events_it_does_not_read(
    runtime: LedgerRuntime,
) -> None:
    read_side, _ = _setup(runtime, 1)
    process = ExpiryProcess(read_side, ExpiryDesk(read_side.ledger))
    process.run_once()
    for n in range(3):  # events of no interest to the expiry process
        runtime.api_keys.issue(f"app-{n}", ["read"], "t")
    assert process.run_once() == runtime.ledger.last_position()
    read_side.close()
