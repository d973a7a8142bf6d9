"""Claim commits against a fleet on PostgreSQL: 1 API process + worker against 2 + worker.

Usage: python -m benchmarks.fleet_commit [--requests 300] [--clients 1,2,4] [--api 1,2]

For each fleet (``provledger serve --no-background`` or ``serve --workers 2``, beside one
``provledger worker``, on a fresh PostgreSQL schema, over loopback HTTP) and each number of
concurrent clients it measures, in one run, in ``--rounds`` rounds that alternate between the
fleets (all of them are started first, so a change in the machine's load falls on each alike):
1. ``GET /healthz``, the baseline;
2. one-claim commits: p50, p99, claims/s, and the server's CPU per commit (the API processes'
   and the worker's, from ``/proc``, less what they burn idle over the same time);
3. 20-claim commits: p50 and claims/s.
Authentication alone is measured by ``benchmarks.auth_cost``. Then it prints the 2-process
figures as ratios of the 1-process ones. The clients, the API processes, the worker and
PostgreSQL share the machine's cores.
"""

from __future__ import annotations

import argparse
import contextlib
import time
from dataclasses import dataclass
from typing import Any

import httpx

from benchmarks._fleet import Fleet, fleet, pct, run_clients, setup_receipts, verbatim

RECEIPTS = 50


@dataclass
class Figures:
    """What one fleet measured with one number of clients."""

    health_p50: float
    p50: float
    p99: float
    claims_per_s: float
    api_cpu_ms: float
    worker_cpu_ms: float
    batch_p50: float
    batch_claims_per_s: float


def _idle_rate(running: Fleet) -> tuple[float, float]:
    """CPU seconds per second the API processes and the worker burn with no requests."""
    api0, worker0 = running.cpu()
    time.sleep(2.0)
    api1, worker1 = running.cpu()
    return (api1 - api0) / 2.0, (worker1 - worker0) / 2.0


def _caught_up(http: httpx.Client, timeout: float = 60.0) -> None:
    """Wait until every projection has applied the whole log (``/readyz`` lag 0)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        checks = http.get("/readyz").json().get("checks", {})
        lags = [c.get("lag", 0) for n, c in checks.items() if n.startswith("projection:")]
        if lags and max(lags) == 0:
            return
        time.sleep(0.05)
    raise RuntimeError("the worker did not catch up")


@dataclass
class Sample:
    """One round of one fleet with one number of clients."""

    health: list[float]
    singles: list[float]
    single_seconds: float
    api_cpu: float
    worker_cpu: float
    batches: list[float]
    batch_seconds: float


class Bench:
    """A running fleet with its source and receipts, ready to measure rounds."""

    def __init__(self, running: Fleet) -> None:
        self.running = running
        self.http = httpx.Client(base_url=running.base, headers=running.headers, timeout=60)
        self.spans, self.receipts = setup_receipts(self.http, "bench", RECEIPTS)
        run_clients(2, 40, self.commit(1), running.base)  # warm every process
        _caught_up(self.http)
        self.idle_api, self.idle_worker = _idle_rate(running)

    def commit(self, claims: int) -> Any:
        """A client call committing ``claims`` verbatim claims."""
        headers = self.running.headers

        def call(client: httpx.Client, index: int) -> None:
            spans = self.spans
            batch = [verbatim(spans[(index * claims + k) % len(spans)]) for k in range(claims)]
            response = client.post(
                f"/v1/receipts/{self.receipts[index % RECEIPTS]}/claims",
                json={"claims": batch},
                headers=headers,
            )
            assert response.status_code == 201, response.text

        return call

    def round(self, clients: int, requests: int) -> Sample:
        """One round: the baseline, one-claim commits, 20-claim commits."""
        running, base = self.running, self.running.base

        def health(client: httpx.Client, index: int) -> None:
            assert client.get("/healthz").status_code == 200

        baseline, _ = run_clients(clients, requests, health, base)
        api0, worker0 = running.cpu()
        started = time.perf_counter()
        singles, elapsed = run_clients(clients, requests, self.commit(1), base)
        api1 = running.cpu()[0]
        _caught_up(self.http)
        worker1 = running.cpu()[1]
        spent = time.perf_counter() - started
        batches, batch_elapsed = run_clients(clients, max(requests // 10, 5), self.commit(20), base)
        _caught_up(self.http)
        return Sample(
            baseline,
            singles,
            elapsed,
            max(0.0, api1 - api0 - self.idle_api * elapsed),
            max(0.0, worker1 - worker0 - self.idle_worker * spent),
            batches,
            batch_elapsed,
        )


def figures(samples: list[Sample]) -> Figures:
    """One fleet's figures for one client count, over its rounds."""
    singles = [x for s in samples for x in s.singles]
    batches = [x for s in samples for x in s.batches]
    return Figures(
        health_p50=pct([x for s in samples for x in s.health], 0.5),
        p50=pct(singles, 0.5),
        p99=pct(singles, 0.99),
        claims_per_s=len(singles) / sum(s.single_seconds for s in samples),
        api_cpu_ms=sum(s.api_cpu for s in samples) / len(singles) * 1000,
        worker_cpu_ms=sum(s.worker_cpu for s in samples) / len(singles) * 1000,
        batch_p50=pct(batches, 0.5),
        batch_claims_per_s=len(batches) * 20 / sum(s.batch_seconds for s in samples),
    )


def _print(api: int, figures: dict[int, Figures], requests: int) -> None:
    name = f"{api} API process{'es' if api > 1 else ''} + worker"
    print(
        f"[{name}] per client count: {requests} one-claim commits, a tenth as many 20-claim"
        " commits (at least 5 a round)"
    )
    for clients, f in figures.items():
        print(
            f"  {clients} client{'s' if clients > 1 else ' '}: /healthz p50 {f.health_p50:6.2f} ms"
        )
        print(
            f"    one-claim: p50 {f.p50:6.2f} ms ({f.p50 / f.health_p50:.1f}x /healthz), "
            f"p99 {f.p99:7.2f} ms, "
            f"{f.claims_per_s:6.1f} claims/s; server CPU per commit: API {f.api_cpu_ms:5.2f} ms"
            f" + worker {f.worker_cpu_ms:5.2f} ms"
        )
        print(f"    20-claim:  p50 {f.batch_p50:6.2f} ms, {f.batch_claims_per_s:7.1f} claims/s")


def main() -> None:
    """Start every fleet, measure them in alternating rounds, print figures and ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=300, help="one-claim commits per cell")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--clients", default="1,2,4")
    parser.add_argument("--api", default="1,2", help="API process counts to compare")
    args = parser.parse_args()
    clients = [int(c) for c in args.clients.split(",")]
    apis = [int(a) for a in args.api.split(",")]
    per_round = max(1, args.requests // args.rounds)
    samples: dict[tuple[int, int], list[Sample]] = {(a, n): [] for a in apis for n in clients}
    with contextlib.ExitStack() as stack:
        benches = {api: Bench(stack.enter_context(fleet(api))) for api in apis}
        for _ in range(args.rounds):  # alternate, so the machine's load falls on each alike
            for n in clients:
                for api in apis:
                    samples[(api, n)].append(benches[api].round(n, per_round))
        for bench in benches.values():
            bench.http.close()
    results = {api: {n: figures(samples[(api, n)]) for n in clients} for api in apis}
    for api in apis:
        _print(api, results[api], per_round * args.rounds)
    first, *others = apis
    for other in others:
        print(f"[{other} API processes vs {first}, same run] ratio = {other} / {first}")
        for n in clients:
            a, b = results[first][n], results[other][n]
            print(
                f"  {n} client{'s' if n > 1 else ' '}: one-claim p50 {b.p50 / a.p50:.2f}x, "
                f"p99 {b.p99 / a.p99:.2f}x, claims/s {b.claims_per_s / a.claims_per_s:.2f}x, "
                f"API CPU per commit {b.api_cpu_ms / max(a.api_cpu_ms, 1e-9):.2f}x; "
                f"20-claim claims/s {b.batch_claims_per_s / a.batch_claims_per_s:.2f}x"
            )


if __name__ == "__main__":
    main()
