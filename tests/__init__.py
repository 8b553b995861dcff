"""GENSTRAT tests; the tree mirrors the project (engines/, assets/, pipelines/, ...)."""
