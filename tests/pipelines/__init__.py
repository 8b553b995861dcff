"""Tests of the Dagster code location: Definitions, IO manager, resources, profiles, make run."""
