"""provledger's REST API (FastAPI) and command line: the composition roots."""
