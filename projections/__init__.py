"""Read models built from the ledger's events with SQLAlchemy Core.

Each projection writes its rows and its tracking position in one transaction, so a replay or
a restart applies every event exactly once.
"""
