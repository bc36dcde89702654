"""The vendor review: every feature's evidence combined into HTML/PDF, JSON and a manifest."""
