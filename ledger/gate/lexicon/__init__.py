"""Word lists and word forms every check reads: tokens and stems, the cue words of negation,
hedging and direction, and opposites (WordNet and a curated list). Decides nothing by itself.
"""
