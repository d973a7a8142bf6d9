"""The anchors check: the numbers, dates, identifiers, URLs and quoted strings of a text, and
whether every anchor of a claim is in its support spans (``anchors_present``, ``anchor_missing``,
``no_anchors``).
"""
