"""arith blocks (being written)."""
