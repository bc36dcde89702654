"""Tests of the questionnaire bank, answers files and spreadsheets."""
