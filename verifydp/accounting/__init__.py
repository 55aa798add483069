"""Privacy-loss-distribution accounting for k-fold composition (Zhao & Liu, MUST §3.3, Alg. 1).

* `pair`: the per-step Gaussian-mixture pair of MUST Eqns (6)–(7) (and the S6 pairs), with
  rigorous loss values and cell masses;
* `intconv`: exact integer convolution (Kronecker substitution, libmpdec's number-theoretic
  transform);
* `pld`: a certified bracket of the composed hockey-stick divergence δ(ε);
* `fourier`: the Fourier accountant exactly as printed in MUST Algorithm 1 (floats / mpmath).
"""
