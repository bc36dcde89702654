"""Core: pure functions on validated models. Nothing here prints, exits or reads sys.argv."""
