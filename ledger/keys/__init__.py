"""Keys as the ledger keeps them: API keys (aggregates) and the signing keys on disk."""
