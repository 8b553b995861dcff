"""Tournaments: scheduling paired deals, playing matches, the resumable corpus (Section 5)."""
