"""Does a self-hosted deployment hold? SGLang/vLLM startup logs checked against the advisories."""
