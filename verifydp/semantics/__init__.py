"""Semantics of DP variants (Kifer et al., paper key `kifer`): pure, approximate, Rényi, zCDP
and Gaussian DP; their conversions, hypothesis-testing bounds and Bayesian bounds, and the
2020 Census budget tables.  Every number that decides a verdict is a rigorous `Bracket`."""
