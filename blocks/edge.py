"""edge blocks (being written)."""
