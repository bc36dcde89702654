"""Is this vendor safe? The questionnaire, vendors' answers (YAML/JSON/xlsx/csv), diffs, scoring."""
