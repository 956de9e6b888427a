"""memory blocks (being written)."""
