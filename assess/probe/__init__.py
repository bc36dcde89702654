"""Does isolation hold now? The canary probe against an OpenAI-compatible endpoint."""
