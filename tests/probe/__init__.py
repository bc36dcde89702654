"""Tests of `assess probe`."""
