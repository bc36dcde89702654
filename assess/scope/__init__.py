"""Were we exposed? Request logs of any gateway scoped against an incident advisory."""
