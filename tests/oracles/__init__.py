"""Slow, obviously correct reference implementations used as test oracles."""
