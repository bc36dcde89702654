"""The lab: a paged KV-cache simulation that reproduces the incident, served over HTTP."""
