"""The science of GENSTRAT: pure Python, no Dagster, no I/O beyond what a caller passes in."""
