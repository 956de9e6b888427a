"""compare blocks (being written)."""
