"""What the entitlement gate and the context packet add to a receipt opening, as ratios.

Usage: python -m benchmarks.entitlement_gate [--backend sqlite|postgres|both] [--rounds 200]

On a fresh ledger with 50 sources (every other one restricted to a group and a purpose), it
times, per call, in CPU time of this process:
1. resolving 100 candidate spans from verified events (the baseline: what opening reads anyway);
2. the same, then deciding each span under the default policy (the gate);
3. the same under a published 20-rule policy whose last rule decides (the worst order);
4. rendering the context packet of 20 of those spans (what the opening hashes and
   ``GET /v1/receipts/{id}/context`` serves).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from benchmarks._setup import backend_settings, open_signed
from ledger.access import DEFAULT_ACCESS_POLICY, AccessPolicy, Principal, SourceAccess, decide
from ledger.receipts.packet import render_packet
from ledger.registry.source_desk import SourceDraft
from projections.service import ReadSide

TEXT = " ".join(f"Clause {i} applies to charges posted in period {i}." for i in range(4))
RESTRICTED = SourceAccess(groups=("investigations",), purposes=("fraud-review",))
PRINCIPAL = Principal(groups=("support",), purpose="fraud-review")
LONG_POLICY = AccessPolicy.parse(
    "bench",
    [
        {
            "id": f"r{i}",
            "effect": "deny",
            "code": "entitlement-bench",
            "when": [{"in": ["principal.roles", [f"role-{i}"]]}],
        }
        for i in range(19)
    ]
    + [{"id": "rest", "effect": "allow"}],
)


def _cpu_per_call(call: Callable[[], object], count: int) -> float:
    """CPU seconds of this process per call of ``call``."""
    started = time.process_time()
    for _ in range(count):
        call()
    return (time.process_time() - started) / count


def bench(backend: str, rounds: int) -> None:
    """Time each step ``rounds`` times on ``backend`` and print the ratios."""
    with backend_settings(backend) as settings:
        runtime = open_signed(settings)
        read_side = ReadSide(runtime.ledger, runtime.database)
        try:
            ids: list[str] = []
            for n in range(50):
                receipt = runtime.sources.register(
                    f"s{n}",
                    SourceDraft(f"Source {n}. {TEXT}", "text/plain", f"S{n}"),
                    "derived",
                    "bench",
                    access=RESTRICTED if n % 2 else None,
                )
                ids.extend(span.span_id for span in receipt.spans[:2])
            read_side.registry.catch_up()
            resolver = read_side.span_resolver
            resolver.resolve(ids)  # warm the verified caches, as a running service has them

            def resolve() -> object:
                return resolver.resolve(ids)

            def gate(policy: AccessPolicy) -> Callable[[], object]:
                def run() -> object:
                    found = resolver.resolve(ids)
                    return [decide(policy, PRINCIPAL, s[0].access) for s in found.values()]

                return run

            pool = [spans[0] for spans in list(resolver.resolve(ids).values())[:20]]
            base = _cpu_per_call(resolve, rounds)
            default = _cpu_per_call(gate(DEFAULT_ACCESS_POLICY), rounds)
            long = _cpu_per_call(gate(LONG_POLICY), rounds)
            packet = _cpu_per_call(lambda: render_packet(pool, "May it be reversed?"), rounds)
            print(f"{backend}: resolve 100 spans (baseline) {base * 1e6:.0f} us/call")
            print(f"  + gate, default policy        x{default / base:.2f}")
            print(f"  + gate, 20-rule policy        x{long / base:.2f}")
            print(f"  packet of 20 spans            x{packet / base:.2f} of the baseline")
        finally:
            read_side.close()
            runtime.close()


def main() -> None:
    """Run the benchmark."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=["sqlite", "postgres", "both"], default="sqlite")
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    for backend in ["sqlite", "postgres"] if args.backend == "both" else [args.backend]:
        bench(backend, args.rounds)


if __name__ == "__main__":
    main()
