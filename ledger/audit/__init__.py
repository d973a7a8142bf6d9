"""Audit: log verification, the log audit, the audit bundle and its verifier, envelope checks,
witnesses and verified reads."""
