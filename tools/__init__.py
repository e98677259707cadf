"""Developer tools run with `make` (not part of the app)."""
