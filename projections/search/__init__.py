"""The search index the service retrieves from: Tantivy segments for BM25 candidates and
memory-mapped per-span arrays (dense vectors, sign bits, token ids, term hashes), in one
folder that every process on a machine reads, kept level with the retrieval read model
(:mod:`projections.search.directory`). docs/retrieval.md and docs/scaling.md describe it."""
