"""select blocks (being written)."""
