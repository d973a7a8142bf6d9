"""Hybrid retrieval over the registry's spans: BM25 and dense rankers fused by RRF, then the
lexical gate, with the visibility decision injected (:mod:`ledger.retrieval.visibility`)."""
