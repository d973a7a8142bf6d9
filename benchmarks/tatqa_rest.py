"""TAT-QA dev over REST: tables sent as they come, arithmetic claims citing their gold cells.

Usage: python -m benchmarks.tatqa_rest [--data DIR] [--caption] [--perturbed] [--limit N]
       [--mismatches N]

Reads ``../shared/data`` relative to the repository (or ``PROVLEDGER_SHARED_DATA``) and exits
with status 2 when it is missing; only the dev file is read. For every TAT-QA dev context it
registers one source over the HTTP API (an in-process ``TestClient`` over a fresh SQLite
ledger): the paragraphs as text/plain, and the table exactly as the data holds it, its leading
header rows as ``header_rows`` and the rest as ``rows`` (blank header cells, section rows and
stub notes such as ``($ in millions)`` left to the ledger; the client only decides which rows
are headers, by :func:`benchmarks.tatqa_tables.table_blocks`: a table that stacks a second
period under the first with its own header rows is sent as two tables). With ``--caption`` the
paragraph sentence that introduces the table is sent as its ``caption``.

The claims are those of ``python -m benchmarks.gate_eval`` (``tatqa_arithmetic`` in both
forms; with ``--perturbed`` also the sign-flip, x10 and +3% answers and the line and period
swaps, none of which may verify).
Each gold cell is cited by the span the ledger made of it (its ``table_ref``), each gold
sentence by the ledger's span holding it; a receipt is opened over those spans and the claim
committed. The report gives, per category and per tune/check half (by table uid), the share
verified over REST next to the share the gate gives in-process on the same claims with the
evaluation's own envelopes.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from api.main import create_app
from api.observability import configure_logging
from api.services import open_ledger
from api.settings import Settings
from benchmarks.eval_cases import HALVES, Case, data_dir
from benchmarks.tatqa_cases import QUESTION_FORM, context_cases, paragraph_sentences, tatqa
from benchmarks.tatqa_tables import caption, table_blocks
from ledger.gate import GateConfig, Status, judge

ARITHMETIC = ("tatqa_arithmetic", "tatqa_arithmetic" + QUESTION_FORM)
PERTURBED = tuple(
    name + suffix
    for name in (
        "tatqa_sign_flip",
        "tatqa_x10",
        "tatqa_plus3pct",
        "tatqa_line_swap",
        "tatqa_period_swap",
    )
    for suffix in ("", QUESTION_FORM)
)


def source_body(context: dict[str, Any], with_caption: bool) -> dict[str, Any]:
    """The ``POST /v1/sources`` body of a TAT-QA context, its table as the data holds it: one
    table ``t1``, or, where the table stacks a second period under the first with its own
    header rows, one table per block (``t1``, ``t2``: :func:`benchmarks.tatqa_tables.table_blocks`),
    as a report's two tables."""
    rows: list[list[str]] = context["table"]["table"]
    width = max((len(row) for row in rows), default=1)
    found = caption(rows, paragraph_sentences(context)) if with_caption else None
    tables = []
    for n, (head, body, end) in enumerate(table_blocks(rows), start=1):
        table: dict[str, Any] = {
            "table_id": f"t{n}",
            "title": "",
            "header_rows": rows[head:body] or [[""] * width],
            "rows": rows[body:end],
        }
        if found:
            table["caption"] = found
        tables.append(table)
    text = "\n\n".join(p["text"].strip() for p in context["paragraphs"] if p["text"].strip())
    return {
        "source_id": f"tatqa-{context['table']['uid']}",
        "title": "TAT-QA report",
        "authority": "derived",
        "text": text or "(no paragraphs)",
        "tables": tables,
    }


def rest_span(
    span_id: str,
    spans: list[dict[str, Any]],
    blocks: list[tuple[int, int, int]],
    sentences: list[str],
) -> str | None:
    """The ledger's span for an evaluation span id (``t{row}.{col}`` or ``p{index}``), a row
    of the data's table found in the block (sent as its own table) that holds it."""
    if span_id.startswith("t"):
        row, col = (int(part) for part in span_id[1:].split("."))
        for n, (_, first, end) in enumerate(blocks, start=1):
            if first <= row < end:
                ref = {"table_id": f"t{n}", "row": row - first, "col": col}
                return next((s["span_id"] for s in spans if s["table_ref"] == ref), None)
        return None
    sentence = sentences[int(span_id[1:])].strip()
    body = [s for s in spans if s["table_ref"] is None and s["parent_span_id"] is None]
    for test in (
        lambda t: t == sentence,
        lambda t: sentence in t,
        lambda t: t in sentence and len(t) > 20,
    ):
        found: str | None = next((s["span_id"] for s in body if test(s["text"])), None)
        if found is not None:
            return found
    return None


def commit(
    client: TestClient, headers: dict[str, str], case: Case, bound: list[str]
) -> tuple[str, tuple[str, ...]]:
    """Open a receipt over ``bound`` and commit the case's claim; return its status and the
    reason codes of its failed checks."""
    receipt = client.post(
        "/v1/receipts",
        json={
            "request": case.claim.text,
            "actor": "tatqa-eval",
            "purpose": "evaluation",
            "policy_version": "default",
            "route": "long_context",
            "model": {"name": "gold", "version": "1"},
            "evidence": bound,
        },
        headers=headers,
    )
    if receipt.status_code not in (200, 201):
        return f"receipt-{receipt.status_code}", ()
    claim = {
        "text": case.claim.text,
        "type": case.claim.type.value,
        "bindings": [{"span_id": span_id} for span_id in bound],
    }
    response = client.post(
        f"/v1/receipts/{receipt.json()['receipt_id']}/claims",
        json={"claims": [claim]},
        headers=headers,
    )
    body = response.json()
    for key in ("committed", "quarantined", "rejected"):
        for item in body.get(key) or ():
            reasons = sorted(
                {str(c["reason"]) for c in item.get("checks") or () if c["outcome"] == "fail"}
            )
            return str(item.get("status", key)), tuple(reasons)
    return f"http-{response.status_code}", ()


def run(
    root: Path,
    with_caption: bool,
    categories: tuple[str, ...],
    limit: int | None,
    mismatches: int = 0,
) -> int:
    """Register every context, commit its claims, and print the report (and up to
    ``mismatches`` claims whose REST status differs from the in-process one)."""
    shown = 0
    configure_logging("WARNING", json=False)
    config = GateConfig()
    rest: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    local: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    refused: Counter[str] = Counter()
    unmapped = 0
    differ: Counter[tuple[str, str, str, tuple[str, ...]]] = Counter()
    contexts = tatqa(root)[:limit]
    with tempfile.TemporaryDirectory() as scratch:
        settings = Settings(data_dir=Path(scratch) / "data", log_level="WARNING")
        runtime = open_ledger(settings)
        try:
            secret = runtime.api_keys.issue(
                "tatqa", ["ingest", "read", "claims:write"], "benchmark"
            )
            headers = {"Authorization": f"Bearer {secret}"}
            with TestClient(create_app(settings, runtime), raise_server_exceptions=False) as client:
                for context in contexts:
                    cases = [c for c in context_cases(context) if c.category in categories]
                    if not cases:
                        continue
                    body = source_body(context, with_caption)
                    response = client.post("/v1/sources", json=body, headers=headers)
                    if response.status_code not in (200, 201):
                        error = response.json().get("errors", [{}])[0]
                        refused[f"{error.get('field')}/{error.get('rule')}"] += len(cases)
                        for case in cases:
                            rest[case.category, case.half or "tune"]["refused"] += 1
                        continue
                    spans = response.json()["spans"]
                    blocks = table_blocks(context["table"]["table"])  # type: ignore[index]
                    sentences = paragraph_sentences(context)
                    for case in cases:
                        half = case.half or "tune"
                        verdict = judge(case.claim, case.spans, config)
                        local[case.category, half][verdict.status.value] += 1
                        bound = [rest_span(k, spans, blocks, sentences) for k in case.spans]
                        if any(span_id is None for span_id in bound):
                            unmapped += 1
                            rest[case.category, half]["unmapped"] += 1
                            continue
                        status, reasons = commit(client, headers, case, [s for s in bound if s])
                        rest[case.category, half][status] += 1
                        if status != verdict.status.value:
                            differ[half, verdict.status.value, status, reasons] += 1
                        if shown < mismatches and status != verdict.status.value:
                            shown += 1
                            print(
                                f"[{half}] {verdict.status.value} in-process, {status} over REST"
                                f" ({', '.join(reasons) or '-'}): "
                                f"{case.claim.text}"
                            )
                            for span in spans:
                                if span["span_id"] in bound:
                                    print(f"    REST: {span.get('envelope') or span['text']}")
                            for facts in case.spans.values():
                                print(f"    in-process: {facts.envelope or facts.text}")
        finally:
            runtime.close()
    _report(categories, local, rest, refused, unmapped, len(contexts), with_caption)
    if mismatches:
        print("\nclaims REST and in-process disagree on, by half and the REST reason codes:")
        for (half, mine, theirs, reasons), n in sorted(differ.items(), key=lambda i: -i[1]):
            print(f"  {half:>5} {n:4d}  {mine} -> {theirs}: {', '.join(reasons) or '-'}")
    return 0


def _report(
    categories: tuple[str, ...],
    local: dict[tuple[str, str], Counter[str]],
    rest: dict[tuple[str, str], Counter[str]],
    refused: Counter[str],
    unmapped: int,
    contexts: int,
    with_caption: bool,
) -> None:
    print(f"TAT-QA dev contexts: {contexts}; caption sent: {with_caption}")
    print(f"claims whose source was refused: {sum(refused.values())} {dict(refused)}")
    print(f"claims with a gold span the ledger did not make: {unmapped}")
    print(
        f"\n{'category':30} {'half':>5} {'n':>5} {'in-process':>11} {'REST':>7}"
        f" {'REST/in-process':>16}"
    )
    verified = Status.VERIFIED.value
    for category in categories:
        for half in HALVES:
            mine = local[category, half]
            theirs = rest[category, half]
            n = sum(theirs.values())
            if not n:
                continue
            a = mine[verified] / max(1, sum(mine.values())) * 100
            b = theirs[verified] / n * 100
            ratio = f"{b / a:.3f}" if a else "-"
            print(f"{category:30} {half:>5} {n:5d} {a:10.1f}% {b:6.1f}% {ratio:>16}")


def main() -> int:
    """Parse arguments and run."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--data", default=None)
    parser.add_argument("--caption", action="store_true", help="send the introducing sentence")
    parser.add_argument("--perturbed", action="store_true", help="also the must-not-verify ones")
    parser.add_argument("--limit", type=int, default=None, help="only the first N contexts")
    parser.add_argument(
        "--mismatches", type=int, default=0, help="show N claims REST and in-process disagree on"
    )
    args = parser.parse_args()
    root = data_dir(args.data)
    if root is None:
        print("shared data not found (../shared/data or PROVLEDGER_SHARED_DATA)", file=sys.stderr)
        return 2
    categories = ARITHMETIC + (PERTURBED if args.perturbed else ())
    return run(root, args.caption, categories, args.limit, args.mismatches)


if __name__ == "__main__":
    sys.exit(main())
