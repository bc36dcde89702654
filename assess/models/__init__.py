"""Pydantic v2 models for every input and output."""
