"""timers blocks (being written)."""
