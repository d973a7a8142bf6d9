"""What a claim may not leave out of the span it aligns to: words that bound, part, rank or
date what it states, what a negation denies, and what a figure measures.
"""
