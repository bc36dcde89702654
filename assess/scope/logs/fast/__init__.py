"""The columnar fast path: NDJSON/CSV blocks parsed to Arrow columns."""
