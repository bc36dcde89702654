"""Readers: files in, validated models out. Every parse failure becomes an InputError."""
