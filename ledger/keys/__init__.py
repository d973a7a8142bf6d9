"""Keys as ledger aggregates: API keys and their scopes."""
