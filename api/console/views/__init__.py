"""The console's routes, one module per page group."""
