"""Probe transports: how requests reach an endpoint (httpx, or the openai SDK)."""
