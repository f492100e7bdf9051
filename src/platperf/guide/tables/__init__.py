"""Guide table families: one module per family (see platperf.guide)."""
