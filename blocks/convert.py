"""convert blocks (being written)."""
