"""The witness: cost of one cosigned checkpoint, and of checking a log against the witness.

Usage: python -m benchmarks.witness [--checkpoints N] [--events N] [--backend sqlite|postgres]

1. A witness (its real data directory, fsynced state) takes N checkpoints of a growing tree,
   each with its consistency proof: median per checkpoint, as a ratio to signing one
   checkpoint note (the log's own cost per batch), measured in the same process.
2. A log of N events: ``verify`` alone, then the extra comparison with a witnessed checkpoint
   (``verify --witness-url`` recomputes every leaf and the root): the ratio of the two.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks._setup import backend_settings, open_signed
from ledger.audit.log_verify import iter_log, verify_log
from ledger.audit.witness import format_add_checkpoint
from ledger.audit.witness_check import check_log_against_witness
from ledger.audit.witness_store import WitnessDataDir
from ledger.crypto.checkpoint import Checkpoint, sign_note, vkey
from ledger.crypto.cosignature import WitnessKey, add_signature_lines, cosign
from ledger.crypto.merkle import leaf_hash
from ledger.crypto.merkle_log import MemoryNodeStore, MerkleLog
from ledger.crypto.signing import SigningKey

ORIGIN = "bench.example/log"


def bench_witness(checkpoints: int) -> None:
    """Median time per cosigned checkpoint against median time to sign one note."""
    log_key = SigningKey.generate()
    store = MemoryNodeStore()
    log = MerkleLog(store.get)
    with tempfile.TemporaryDirectory() as tmp:
        directory = WitnessDataDir(Path(tmp))
        directory.init("bench.example/witness", [vkey(ORIGIN, log_key.public_key)])
        witness = directory.open()
        witnessed, cosigning, signing = 0, [], []
        for batch in range(checkpoints):
            for i in range(100):
                store.put(log.append(leaf_hash(f"{batch}/{i}".encode())))
            started = time.perf_counter()
            note = sign_note(Checkpoint(ORIGIN, log.size, log.root()), ORIGIN, log_key)
            signing.append(time.perf_counter() - started)
            proof = log.consistency_proof(witnessed, log.size) if witnessed else []
            body = format_add_checkpoint(witnessed, proof, note)
            started = time.perf_counter()
            witness.add_checkpoint(body)
            cosigning.append(time.perf_counter() - started)
            witnessed = log.size
    ratio = statistics.median(cosigning) / statistics.median(signing)
    print(
        f"witness: {checkpoints} checkpoints cosigned (100 leaves apart), median "
        f"{statistics.median(cosigning) * 1000:.2f} ms each = {ratio:.1f}x signing one note "
        f"({statistics.median(signing) * 1000:.3f} ms); includes the fsynced state write"
    )


def bench_check(backend: str, events: int) -> None:
    """``verify`` alone against the added comparison with a witnessed checkpoint."""
    with backend_settings(backend) as settings:
        runtime = open_signed(settings)
        try:
            for i in range(events // 2):
                runtime.api_keys.issue(f"k{i}", ["read"], "bench")
                runtime.api_keys.revoke(f"k{i}", "r", "bench")
            leaves = [leaf_hash(n.state) for n in iter_log(runtime.ledger.recorder)]
            store = MemoryNodeStore()
            log = MerkleLog(store.get)
            for value in leaves:
                store.put(log.append(value))
            signer = runtime.ledger.signing_key
            checkpoint = Checkpoint(settings.log_origin, log.size, log.root())
            witness_signer = SigningKey.generate()
            note = add_signature_lines(
                sign_note(checkpoint, settings.log_origin, signer),
                cosign(checkpoint, "bench.example/witness", witness_signer, int(time.time())),
            )
            witness = WitnessKey("bench.example/witness", witness_signer.public_key)
            started = time.perf_counter()
            report = verify_log(runtime.ledger.recorder, runtime.keyring)
            walk = time.perf_counter() - started
            started = time.perf_counter()
            check_log_against_witness(
                runtime.ledger.recorder, runtime.keyring, note, witness, settings.log_origin
            )
            compare = time.perf_counter() - started
            assert report.ok
            print(
                f"[{backend}] {events} events: verify {walk:.2f}s; the witness comparison adds "
                f"{compare:.2f}s = {compare / walk:.2f}x the verify walk"
            )
        finally:
            runtime.close()


def main() -> None:
    """Parse arguments and run both measurements."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--checkpoints", type=int, default=200)
    parser.add_argument("--events", type=int, default=4000)
    parser.add_argument("--backend", choices=["sqlite", "postgres"], default="sqlite")
    args = parser.parse_args()
    bench_witness(args.checkpoints)
    bench_check(args.backend, args.events)


if __name__ == "__main__":
    main()
