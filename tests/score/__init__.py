"""Tests of the risk scoring."""
