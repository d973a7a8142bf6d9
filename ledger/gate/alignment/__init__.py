"""How a claim clause is laid over a span clause, word by word in order: the words and their
roles, clauses, the match, and how far the first and last stretches reach. Decides nothing by
itself: :mod:`ledger.gate.factual` judges what the match shows.
"""
