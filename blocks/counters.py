"""counters blocks (being written)."""
