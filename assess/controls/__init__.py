"""The controls crosswalk: questions and findings mapped to framework controls (controls/)."""
