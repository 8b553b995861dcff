"""Asset tests: each asset as a plain function first, then through ``dg.materialize``."""
