"""Incident advisories: the catalogue of known incidents (YAML in advisories/) and its models."""
