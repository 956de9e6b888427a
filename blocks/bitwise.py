"""bitwise blocks (being written)."""
