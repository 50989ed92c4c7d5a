"""Probes (the `torch` extra): re-run the first checks on the user's own model."""
