"""Hypothesis is derandomised everywhere (CI reproducibility, docs/foundations.md#search)."""

from hypothesis import settings

settings.register_profile("verifydp", derandomize=True, deadline=None, print_blob=True)
settings.load_profile("verifydp")
