"""The support check of a computational claim: enough of its content words in its spans
(``support_sufficient``, ``support_insufficient``), and the line of each cited cell named
(``support_line_unnamed``, ``support_line_item``).
"""
