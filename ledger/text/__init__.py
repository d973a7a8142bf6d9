"""Text handling for the evidence registry: normalise and freeze sources, split them into spans.

* :mod:`ledger.text.normalize` turns text/plain, text/markdown and text/html into frozen plain
  text plus its :class:`~ledger.text.normalize.Structure` (headings, paragraphs, page breaks).
* :mod:`ledger.text.segment` finds sentence and clause boundaries as code point offsets.
* :mod:`ledger.text.tables` validates tabular evidence and renders it as citeable text.
* :mod:`ledger.text.spans` turns frozen text into stable, addressable
  :class:`~ledger.text.spans.Span` records.

Every offset in this package is a Python ``str`` index (a Unicode code point offset) into the
frozen text.
"""
