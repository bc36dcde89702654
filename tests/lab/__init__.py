"""Tests of `assess lab` (engine and server)."""
