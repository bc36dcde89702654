"""Renderers: turn core results into terminal tables, JSON, HTML and PDF."""
