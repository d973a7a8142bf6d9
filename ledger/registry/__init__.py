"""The source registry: the source aggregate, its commands, ingestion, the span codec, the
evidence port and verified spans."""
