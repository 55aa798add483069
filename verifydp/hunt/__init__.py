"""Hunting violations: search spaces per claim, hypothesis-driven search, portfolio."""
