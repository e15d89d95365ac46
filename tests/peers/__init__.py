"""Peers held to their word: their own tests' expectations, live and recorded parity."""
