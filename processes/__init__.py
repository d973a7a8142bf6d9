"""Long-running event processors beside the API: expiry, entailment sampling and witness
submission, with the HTTP clients they use. They read projections; they import nothing from
``api``."""
