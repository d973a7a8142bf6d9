"""The audit bundle: its shape, its reason codes, and the offline verifier of its log and
evidence."""
