"""Cryptographic primitives and formats: canonical JSON (RFC 8785), Ed25519 signing, HMAC keys,
DSSE, RFC 9162 Merkle trees, checkpoints and cosignatures (C2SP)."""
