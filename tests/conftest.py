"""Hypothesis is derandomised everywhere (CI reproducibility, design.md §6)."""

from hypothesis import settings

settings.register_profile("verifydp", derandomize=True, deadline=None, print_blob=True)
settings.load_profile("verifydp")
