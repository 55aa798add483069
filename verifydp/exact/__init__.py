"""Exact numbers: finite distributions, rational functions of t = e^eps, rigorous brackets."""
