"""provledger's domain and write side: signed events, aggregates, keys and verification.

Nothing in this package imports the web framework or the read-model database.
"""
