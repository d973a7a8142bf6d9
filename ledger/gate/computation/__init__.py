"""The computation check: read a computational claim's result and operation, read the figures
of its cited spans, and recompute (``recomputed``, ``recompute_mismatch``, ``unit_mismatch``
and the skips that leave it unverified).
"""
