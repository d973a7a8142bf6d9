"""Whether a claim and its span agree on negation, hedging and direction: at the aligned
positions of a factual claim (``negation_mismatch``, ``hedge_mismatch``, ``antonym_mismatch``,
``direction_mismatch``; an anchor of the same role with another value, ``anchor_misaligned``),
and over one window of evidence for a computational claim.
"""
