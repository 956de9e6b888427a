"""The ``fbd`` command (:mod:`.cli`), its benchmark (:mod:`.bench`) and the random
networks the benchmark and the property tests run (:mod:`.synthetic`)."""
