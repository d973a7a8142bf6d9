"""Receipts: the receipt aggregate, commit commands, validation, the receipt document, repair,
expiry and policies."""
