"""With PROMETHEUS_MULTIPROC_DIR, a scrape of one process sums every process's counters."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

COUNT = """
from api.metrics import key_cache_hit, observe_request
key_cache_hit()
observe_request("GET", "/v1/sources/{source_id}", 200, 0.01)
"""
SCRAPE = """
import sys
from api.metrics import process_metrics
for metric in process_metrics():
    for s in metric.samples:
        sys.stdout.write(f"{s.name} {s.labels} {s.value}\\n")
"""


def _run(code: str, directory: Path) -> str:
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(directory)}
    result = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    return result.stdout


def test_a_scrape_sums_the_counters_of_every_process(tmp_path: Path) -> None:
    _run(COUNT, tmp_path)
    _run(COUNT, tmp_path)

    lines = _run(SCRAPE, tmp_path).splitlines()

    assert "provledger_api_key_cache_total {'result': 'hit'} 2.0" in lines
    route = "'route': '/v1/sources/{source_id}'"
    [requests] = [line for line in lines if line.startswith("provledger_http_requests_total ")]
    assert route in requests
    assert requests.endswith(" 2.0")
