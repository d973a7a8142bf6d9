"""A bounded soak: mixed traffic against 2 API processes and a worker on PostgreSQL.

Usage: python -m benchmarks.soak [--minutes 10] [--clients 4] [--api 2]

Starts ``provledger serve --workers 2`` and ``provledger worker`` on a fresh schema and sends,
from ``--clients`` threads over loopback, until the time is up: source ingestion, receipts,
one- and five-claim commits, reads (sources, receipts, claims, each sent with the position of
the client's last write, so any API process must answer it), and audit proofs (checkpoint,
inclusion proof, claim bundle). It samples ``/readyz`` every 5 s for the projections' lag
(events and seconds). At the end it prints counts by operation and status, the 5xx count (must
be 0), the largest lag seen, the resident memory of every process at the start and the end,
then stops the fleet and runs ``provledger verify`` and ``provledger verify --read-models``.
The loop is bounded by time; every request goes to 127.0.0.1.
"""

from __future__ import annotations

import argparse
import random
import statistics
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

from benchmarks._fleet import (
    SENTENCES,
    Fleet,
    autovacuum_note,
    fleet,
    pct,
    receipt_body,
    verbatim,
)

SAMPLE_SECONDS = 5.0


Known = tuple[str, Any, int]
"""A source, receipt or claim id, what a client needs of it, and the log position of its
write (a read of it sends that position, so whichever API process answers has projected it)."""


class Traffic:
    """What the clients share: known sources, receipts and claims, and what they saw."""

    def __init__(self, seed: int) -> None:
        self.lock = threading.Lock()
        self.random = random.Random(seed)
        self.sources: list[Known] = []
        self.receipts: list[Known] = []
        self.claims: list[Known] = []
        self.statuses: Counter[tuple[str, int]] = Counter()
        self.latencies: dict[str, list[float]] = {}
        self.failures: list[str] = []
        self.sequence = 0

    def record(self, operation: str, response: httpx.Response, seconds: float) -> None:
        """Count one answered request."""
        with self.lock:
            self.statuses[(operation, response.status_code)] += 1
            self.latencies.setdefault(operation, []).append(seconds)
            if response.status_code >= 500 and len(self.failures) < 20:
                self.failures.append(f"{operation} {response.status_code}: {response.text[:300]}")

    def next_number(self) -> int:
        """A number no other request used."""
        with self.lock:
            self.sequence += 1
            return self.sequence

    def pick(self, items: list[Known]) -> Known | None:
        """A random known item (None when there is none yet)."""
        with self.lock:
            return self.random.choice(items) if items else None

    def add(self, items: list[Known], *new: Known) -> None:
        """Make items known to every client."""
        with self.lock:
            items.extend(new)


class Client:
    """One client thread's session."""

    def __init__(self, running: Fleet, traffic: Traffic, seed: int) -> None:
        self.http = httpx.Client(base_url=running.base, headers=running.headers, timeout=60)
        self.traffic = traffic
        self.random = random.Random(seed)

    def send(
        self, operation: str, method: str, path: str, position: int | None = None, **kwargs: Any
    ) -> httpx.Response:
        """One request, counted; ``position`` asks to read at least that much of the log."""
        headers = {} if position is None else {"Provledger-Position": str(position)}
        started = time.perf_counter()
        response = self.http.request(method, path, headers=headers, **kwargs)
        self.traffic.record(operation, response, time.perf_counter() - started)
        return response

    @staticmethod
    def position(response: httpx.Response) -> int:
        """The log position a write answered with."""
        return int(response.headers.get("provledger-position", "0"))

    def ingest(self) -> None:
        """Register a small source."""
        n = self.traffic.next_number()
        start = self.random.randrange(len(SENTENCES) - 6)
        text = f"Report {n}. " + " ".join(SENTENCES[start : start + 5])
        body = {"source_id": f"soak-{n}", "title": f"S{n}", "authority": "derived", "text": text}
        response = self.send("ingest", "POST", "/v1/sources", json=body)
        if response.status_code == 201:
            known = (f"soak-{n}", response.json()["spans"], self.position(response))
            self.traffic.add(self.traffic.sources, known)

    def receipt(self) -> None:
        """Open a receipt over a known source's spans."""
        source = self.traffic.pick(self.traffic.sources)
        if source is None:
            return self.ingest()
        spans = source[1]
        body = receipt_body([s["span_id"] for s in spans], self.traffic.next_number())
        response = self.send("receipt", "POST", "/v1/receipts", json=body)
        if response.status_code == 201:
            known = (response.json()["receipt_id"], spans, self.position(response))
            self.traffic.add(self.traffic.receipts, known)
        return None

    def commit(self, claims: int) -> None:
        """Commit ``claims`` verbatim claims to a known receipt."""
        receipt = self.traffic.pick(self.traffic.receipts)
        if receipt is None:
            return self.receipt()
        receipt_id, spans, _ = receipt
        batch = [verbatim(self.random.choice(spans)) for _ in range(claims)]
        response = self.send(
            f"commit-{claims}", "POST", f"/v1/receipts/{receipt_id}/claims", json={"claims": batch}
        )
        if response.status_code == 201:
            position = self.position(response)
            committed = [(c["claim_id"], None, position) for c in response.json()["committed"]]
            self.traffic.add(self.traffic.claims, *committed)
        return None

    def read(self) -> None:
        """Read a source, a receipt or a claim (at the position of its write)."""
        choice = self.random.random()
        if choice < 0.34 and (source := self.traffic.pick(self.traffic.sources)) is not None:
            self.send("read-source", "GET", f"/v1/sources/{source[0]}", source[2])
        elif choice < 0.67 and (receipt := self.traffic.pick(self.traffic.receipts)) is not None:
            self.send("read-receipt", "GET", f"/v1/receipts/{receipt[0]}", receipt[2])
        elif (claim := self.traffic.pick(self.traffic.claims)) is not None:
            self.send("read-claim", "GET", f"/v1/claims/{claim[0]}", claim[2])

    def proof(self) -> None:
        """A checkpoint and an inclusion proof in it, or a claim's bundle."""
        claim = self.traffic.pick(self.traffic.claims)
        if claim is not None and self.random.random() < 0.3:
            self.send("bundle", "GET", f"/v1/claims/{claim[0]}/bundle", claim[2])
            return
        checkpoint = self.send("checkpoint", "GET", "/v1/audit/checkpoint")
        if checkpoint.status_code != 200:
            return
        size = int(checkpoint.text.splitlines()[1])
        index = self.random.randrange(size)
        self.send("inclusion", "GET", f"/v1/audit/proofs/inclusion?size={size}&index={index}")

    def step(self) -> None:
        """One operation, by weight."""
        roll = self.random.random()
        if roll < 0.08:
            self.ingest()
        elif roll < 0.20:
            self.receipt()
        elif roll < 0.42:
            self.commit(1)
        elif roll < 0.50:
            self.commit(5)
        elif roll < 0.82:
            self.read()
        else:
            self.proof()


def _lag_sampler(running: Fleet, stop: threading.Event, lags: list[tuple[int, float]]) -> None:
    with httpx.Client(base_url=running.base, timeout=30) as http:
        while not stop.wait(SAMPLE_SECONDS):
            try:
                checks = http.get("/readyz").json().get("checks", {})
            except httpx.HTTPError:
                continue
            for name, check in checks.items():
                if name.startswith("projection:"):
                    lags.append((check.get("lag", 0), check.get("lag_seconds", 0.0)))


def _rss_sampler(
    running: Fleet,
    stop: threading.Event,
    every: float,
    samples: list[tuple[float, dict[str, float]]],
) -> None:
    began = time.monotonic()
    while not stop.wait(every):
        samples.append((time.monotonic() - began, running.rss()))


def _print_rss(samples: list[tuple[float, dict[str, float]]]) -> None:
    """RSS of each API process and of the worker over the run, and how fast each grew in the
    first and in the second half (flat memory: the second half grows far less, or not)."""
    names = [n for n in samples[0][1] if n.startswith(("api pid", "worker"))]
    print("  RSS over the run (MiB):")
    print("    " + "min".rjust(6) + "".join(f"{name:>22}" for name in names))
    for at, sizes in samples:
        print(f"    {at / 60:6.1f}" + "".join(f"{sizes.get(name, 0.0):22.1f}" for name in names))
    middle = samples[len(samples) // 2]
    first, last = samples[0], samples[-1]
    for name in names:
        early = (middle[1].get(name, 0.0) - first[1].get(name, 0.0)) / max(middle[0] - first[0], 1)
        late = (last[1].get(name, 0.0) - middle[1].get(name, 0.0)) / max(last[0] - middle[0], 1)
        # A trend that one sample taken during a burst of large requests does not move as it
        # moves a difference of two samples.
        trend = statistics.linear_regression(
            [at / 60 for at, _ in samples], [sizes.get(name, 0.0) for _, sizes in samples]
        ).slope
        print(
            f"  {name}: grew {early * 60:5.2f} MiB/min in the first half,"
            f" {late * 60:5.2f} MiB/min in the second; least-squares slope over every sample"
            f" {trend:5.2f} MiB/min"
        )


def _drive(
    running: Fleet,
    traffic: Traffic,
    clients: int,
    seconds: float,
    errors: list[BaseException],
    seed: int,
) -> None:
    """``clients`` threads sending the mixed traffic for ``seconds``."""
    deadline = time.monotonic() + seconds

    def work(seed: int) -> None:
        client = Client(running, traffic, seed)
        try:
            while time.monotonic() < deadline:
                client.step()
        except BaseException as exc:  # a transport error ends this client, and is reported
            errors.append(exc)
        finally:
            client.http.close()

    threads = [threading.Thread(target=work, args=(seed + n,)) for n in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def soak(running: Fleet, minutes: float, clients: int, warmup: float = 0.0) -> int:
    """Run the traffic (after ``warmup`` minutes of the same traffic, not measured for
    memory); return the number of 5xx answers."""
    traffic = Traffic(seed=7)
    seeder = Client(running, traffic, seed=1)
    for _ in range(3):
        seeder.ingest()
    seeder.receipt()
    seeder.commit(1)
    errors: list[BaseException] = []
    rss_before = running.rss()
    if warmup > 0:
        _drive(running, traffic, clients, warmup * 60, errors, seed=200)
        print(
            f"[warm-up] {warmup:.1f} min, {sum(traffic.statuses.values())} requests; "
            "RSS before it: "
            + ", ".join(f"{n} {mib:.1f} MiB" for n, mib in sorted(rss_before.items()))
        )
    rss_start = running.rss()
    parts_start = running.rss_parts()
    stop = threading.Event()
    lags: list[tuple[int, float]] = []
    sampler = threading.Thread(target=_lag_sampler, args=(running, stop, lags), daemon=True)
    sampler.start()
    rss_samples: list[tuple[float, dict[str, float]]] = [(0.0, rss_start)]
    rss_every = minutes * 60 / 20
    threading.Thread(
        target=_rss_sampler, args=(running, stop, rss_every, rss_samples), daemon=True
    ).start()
    warmed = sum(traffic.statuses.values())
    started = time.monotonic()
    _drive(running, traffic, clients, minutes * 60, errors, seed=100)
    elapsed = time.monotonic() - started
    stop.set()
    rss_end = running.rss()
    parts_end = running.rss_parts()
    rss_samples.append((elapsed, rss_end))
    seeder.http.close()

    total = sum(traffic.statuses.values())
    server_errors = sum(n for (_, status), n in traffic.statuses.items() if status >= 500)
    print(
        f"[soak] {running.api_processes} API processes + worker, PostgreSQL, {clients} clients, "
        f"{elapsed / 60:.1f} min: {total - warmed} requests ({(total - warmed) / elapsed:.1f}/s)"
        + (f"; answers below include the warm-up's {warmed}" if warmed else "")
    )
    for operation in sorted(traffic.latencies):
        by_status = {s: n for (op, s), n in sorted(traffic.statuses.items()) if op == operation}
        latencies = traffic.latencies[operation]
        print(
            f"  {operation:<13} {by_status}  p50 {pct(latencies, 0.5):7.2f} ms"
            f"  p99 {pct(latencies, 0.99):8.2f} ms"
        )
    print(f"  5xx answers: {server_errors}")
    for failure in traffic.failures:
        print(f"    {failure}")
    for exc in errors:
        print(f"  client stopped by {type(exc).__name__}: {exc}")
    if lags:
        print(
            f"  projection lag over {len(lags) // 3} samples: max {max(e for e, _ in lags)} events,"
            f" max {max(s for _, s in lags):.2f} s"
        )
    log = (running.logs / "api.log").read_text(errors="replace")
    restarts = sum(1 for line in log.splitlines() if "Child process [" in line and "died" in line)
    print(f"  API processes replaced by the supervisor (start-up included): {restarts}")
    for label, sizes in (("start", rss_start), ("end", rss_end)):
        listed = ", ".join(f"{name} {mib:.1f} MiB" for name, mib in sorted(sizes.items()))
        print(f"  RSS at {label}: {listed}")
    _print_rss(rss_samples)
    print("  RSS by kind, start -> end (MiB):")
    for name, parts in parts_start.items():
        kinds = ", ".join(
            f"{kind} {mib:.1f} -> {parts_end.get(name, {}).get(kind, 0.0):.1f}"
            for kind, mib in parts.items()
        )
        print(f"    {name}: {kinds}")
    metrics = Path(running.env["PROMETHEUS_MULTIPROC_DIR"])
    files = list(metrics.glob("*.db"))
    size = sum(f.stat().st_size for f in files) / 2**20
    print(f"  metrics files at the end: {len(files)}, {size:.1f} MiB")
    return server_errors + len(errors)


def main() -> None:
    """Run the soak, then verify the ledger and its read models."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument(
        "--warmup",
        type=float,
        default=0.0,
        help="minutes of the same traffic before RSS is first taken (the caches fill)",
    )
    parser.add_argument("--api", type=int, default=2, help="API processes")
    args = parser.parse_args()
    note = autovacuum_note()
    if note:
        print(note)
    with fleet(args.api) as running:
        failures = soak(running, args.minutes, args.clients, args.warmup)
        deadline = time.monotonic() + 60  # the worker finishes the last batches
        while time.monotonic() < deadline:
            checks = httpx.get(f"{running.base}/readyz", timeout=30).json().get("checks", {})
            if all(c.get("lag", 0) == 0 for n, c in checks.items() if n.startswith("projection")):
                break
            time.sleep(0.2)
        running.api.terminate()
        running.worker.terminate()
        running.api.wait(timeout=60)
        running.worker.wait(timeout=60)
        for args_ in (["verify", "--no-progress"], ["verify", "--no-progress", "--read-models"]):
            started = time.monotonic()
            result = running.cli(*args_)
            tail = (result.stdout + result.stderr).strip().splitlines()[-3:]
            print(
                f"  provledger {' '.join(args_)}: exit {result.returncode} "
                f"({time.monotonic() - started:.1f} s)"
            )
            for line in tail:
                print(f"    {line}")
            failures += result.returncode != 0
    raise SystemExit(1 if failures else 0)


if __name__ == "__main__":
    main()
