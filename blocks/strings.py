"""strings blocks (being written)."""
