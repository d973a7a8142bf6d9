"""Every user path measured end to end on ledgers of 10k, 100k and 1M spans (docs/scaling.md).

``python -m benchmarks.scale`` builds or resumes the ledgers (:mod:`benchmarks.scale.ledgers`,
from :mod:`benchmarks.scale.corpus`), serves each, keeps ingesting while clients run the mixed
workload, and prints every path's p50 and p99 (:mod:`benchmarks.scale.__main__`).
"""
