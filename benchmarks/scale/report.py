"""Measuring one ledger end to end, and printing the tables of a run.

:func:`measure` runs the workload on a prepared ledger and adds what is measured outside it:
``provledger verify`` (events/s), ``provledger projections rebuild`` (when asked), resident
memory of every process, and the ledger's size on disk. :func:`print_tables` prints, per
backend, every path's p50 and p99, its p50 as a multiple of ``/healthz``'s in the same run,
and its growth from the smallest ledger to the largest; then the targets' ratios.
"""

from __future__ import annotations

import re
import statistics
import subprocess
import time
from pathlib import Path
from typing import Any

import psycopg

from benchmarks.scale.client import Timings
from benchmarks.scale.corpus import Corpus
from benchmarks.scale.ledgers import PG_DATABASE, PG_SERVER, ScaleLedger
from benchmarks.scale.served import CLI, serve
from benchmarks.scale.workload import run

Result = dict[str, Any]


def measure(
    ledger: ScaleLedger,
    corpus: Corpus,
    prepared: dict[str, float],
    seconds: float,
    quiet: float,
    rebuild: bool,
) -> Result:
    """Serve ``ledger``, run the workload, then verify, size and (optionally) rebuild."""
    with serve(ledger, ledger.data_dir / "logs") as served:
        busy, calm, ingested = run(served, corpus, corpus.queries(), seconds, quiet)
        memory = served.rss()
        env = served.env
    result: Result = {
        "ledger": ledger.name,
        "spans": ledger.progress()["spans"],
        "prepared": prepared,
        "paths": _summary(busy),
        "quiet": _summary(calm),
        "fresh": {f"api {n + 1}": sorted(values) for n, values in sorted(busy.fresh.items())},
        "ingested": ingested,
        "seconds": seconds,
        "failures": busy.failures + calm.failures,
        "rss": memory,
    }
    result["verify"] = _verify(env)
    if rebuild:
        started = time.perf_counter()
        subprocess.run(
            [CLI, "projections", "rebuild"], env=env, check=True, capture_output=True, timeout=7200
        )
        result["rebuild_seconds"] = time.perf_counter() - started
    result["disk_mib"] = _disk_mib(ledger)
    return result


def _summary(timings: Timings) -> dict[str, dict[str, float]]:
    out = {}
    for path, values in timings.paths.items():
        ordered = sorted(values)
        out[path] = {
            "n": len(ordered),
            "p50": statistics.median(ordered) * 1000,
            "p99": ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))] * 1000,
        }
    return out


def _verify(env: dict[str, str]) -> dict[str, float]:
    done = subprocess.run(
        [CLI, "verify"], env=env, capture_output=True, text=True, check=False, timeout=7200
    )
    found = re.search(r"OK: (\d+) events .*?([\d,]+) events/s", done.stdout)
    if not found:
        return {"events": 0, "events_per_second": 0.0, "failed": 1.0}
    return {"events": int(found[1]), "events_per_second": float(found[2].replace(",", ""))}


def _disk_mib(ledger: ScaleLedger) -> dict[str, float]:
    files = sum(p.stat().st_size for p in ledger.data_dir.rglob("*") if p.is_file())
    index = sum(
        p.stat().st_size for p in (ledger.data_dir / "retrieval-index").rglob("*") if p.is_file()
    )
    sizes = {"data folder": files / 2**20, "of which search index": index / 2**20}
    if ledger.backend == "postgres":
        with psycopg.connect(f"{PG_SERVER}/{PG_DATABASE}") as conn:
            row = conn.execute(
                "SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
                "JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE n.nspname = %s AND c.relkind = 'r'",
                (f"scale_{ledger.size}",),
            ).fetchone()
        sizes["postgresql schema"] = float(row[0] if row else 0) / 2**20
    return sizes


def print_tables(results: list[Result], machine: str) -> None:
    """Every path per backend, then the targets."""
    print(f"\n{machine}")
    for backend in ("sqlite", "postgres"):
        runs = [r for r in results if r["ledger"].startswith(backend)]
        if runs:
            _print_backend(backend, runs)


def _print_backend(backend: str, runs: list[Result]) -> None:
    sizes = [r["ledger"].split("-")[1] for r in runs]
    print(
        f"\n{backend}: p50 / p99 ms (p50 as a multiple of /healthz's), "
        f"growth {sizes[0]} -> {sizes[-1]}"
    )
    header = "| path | " + " | ".join(
        f"{s} ({r['spans']:,} spans)" for s, r in zip(sizes, runs, strict=True)
    )
    print(header + " | growth |")
    print("|---" * (len(runs) + 2) + "|")
    paths = list(dict.fromkeys(p for r in runs for p in r["paths"]))
    for path in paths:
        cells = []
        for r in runs:
            p = r["paths"].get(path)
            base = r["paths"].get("healthz", {}).get("p50") or 1.0
            cells.append(
                "-" if p is None else f"{p['p50']:.1f} / {p['p99']:.1f} ({p['p50'] / base:.0f}x)"
            )
        first, last = runs[0]["paths"].get(path), runs[-1]["paths"].get(path)
        growth = f"{last['p50'] / first['p50']:.2f}x" if first and last else "-"
        print(f"| {path} | " + " | ".join(cells) + f" | {growth} |")
    for r in runs:
        _print_extras(r)


def _print_extras(r: Result) -> None:
    name = r["ledger"]
    busy = r["paths"].get("retrieve k=20", {}).get("p50")
    calm = r["quiet"].get("retrieve k=20", {}).get("p50")
    if busy and calm:
        print(
            f"{name}: retrieve p50 with ingestion {busy:.1f} ms, without {calm:.1f} ms, "
            f"ratio {busy / calm:.2f}"
        )
    for process, values in r["fresh"].items():
        if values:
            worst = max(values)
            shown = "never" if worst >= 1e9 else f"{worst * 1000:.0f} ms"
            print(
                f"{name}: a new span retrievable in {process}: p50 "
                f"{statistics.median(values) * 1000:.0f} ms, max {shown} ({len(values)} ingests)"
            )
    print(
        f"{name}: {r['ingested']} sources ingested in {r['seconds']:.0f} s "
        f"({r['ingested'] / r['seconds']:.2f}/s)"
    )
    for process, memory in r["rss"].items():
        parts = ", ".join(f"{k} {v:.0f}" for k, v in memory.items() if k != "rss")
        print(f"{name}: RSS {process} {memory['rss']:.0f} MiB ({parts})")
    verify = r["verify"]
    print(
        f"{name}: verify {verify['events']:,} events at {verify['events_per_second']:,.0f} events/s"
    )
    prepared = r["prepared"]
    print(
        f"{name}: read models caught up from the build in {prepared['project']:.1f} s, "
        f"search index level in {prepared['index']:.1f} s"
    )
    if "rebuild_seconds" in r:
        print(f"{name}: projections rebuild {r['rebuild_seconds']:.1f} s")
    disk = ", ".join(f"{k} {v:,.0f} MiB" for k, v in r["disk_mib"].items())
    print(f"{name}: disk: {disk}")
    for failure in r["failures"][:5]:
        print(f"{name}: failed: {failure}")


def machine() -> str:
    """The machine and the date, as the table's heading says them."""
    cpu = "unknown processor"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    cores = len(
        [
            line
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("processor")
        ]
    )
    memory = int(Path("/proc/meminfo").read_text().split()[1]) / 2**20
    load = Path("/proc/loadavg").read_text().split()[:3]
    return (
        f"{time.strftime('%Y-%m-%d')}, {cores} cores ({cpu}), {memory:.0f} GiB, load average "
        f"{' '.join(load)} at the end"
    )
