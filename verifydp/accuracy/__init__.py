"""Accuracy of privatized estimates with and without sampling (paper key `hu`).

Hu, Drechsler, Kim, "Accuracy Gains from Privacy Amplification Through Sampling for
Differential Privacy". One module per job: the amplified parameters (`amplification`), the
Laplace-mean variances (`variance`), the smooth sensitivity of the median (`smooth`), the
§4.1 gain condition and break-even rates (`gain`), the CDF-based definitions (`cdfdp`) and
printed-number judging (`cells`).
"""
