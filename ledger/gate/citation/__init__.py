"""The checks of one binding: its span exists and is in the receipt's pool (``existence``), its
source version was in force (``version``), and its quote is the span's text (``quote``).
"""
