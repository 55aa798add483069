"""Claims of Zhao & Liu, "MUltistage Sampling Technique (MUST)" (paper key `must`):
Theorem 1, the privacy profiles of the Laplace and Gaussian mechanisms, and the group
profiles obtained from them by substituting jΔ_p for Δ_p.

Each printed formula is a sympy expression in ε (`EPS`) and the printed parameters
(Δ_1 or Δ_2, σ), evaluated rigorously with `bracket_special` (the interval evaluator plus
erfc, Φ(x) = erfc(−x/√2)/2).  The reference is independent of any closed form: the
hockey-stick divergence ∫ max(0, p − e^ε q) dx between the output densities for two
neighbouring inputs, integrated numerically at 50 digits (`verifydp.mechanisms.profiles`).

Reference pairs.  For datasets at distance ≤ j, |f(X) − f(X')| ≤ jΔ (triangle inequality), and
a counting query attains jΔ.  The Laplace (1-D) and Gaussian (any dimension, by rotation
invariance) hockey-stick divergences depend only on the shift/σ and are non-decreasing in it
(checked numerically in tests), so the worst pair is the shift jΔ/σ used here.

Decision per instance: HOLDS when the union of the printed bracket and the reference bracket
(value ± estimated quadrature error) has width ≤ 1e-30 × its magnitude (or the reference is
exactly 0 and the printed bracket is within 1e-50 of it); REFUTED when the two brackets are
disjoint with a gap > 1e-6 × the larger magnitude; INCONCLUSIVE otherwise.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import sympy

from verifydp.claims.base import (
    Budget,
    Claim,
    ClaimResult,
    InstanceResult,
    Verdict,
    combine,
    statement,
)
from verifydp.exact.interval import Bracket
from verifydp.exact.numtext import number_text
from verifydp.exact.tfunc import EPS
from verifydp.mechanisms.profiles import (
    bracket_special,
    gaussian_hockey_stick,
    laplace_hockey_stick,
    normal_cdf,
)

PAPER = "must"
WHERE = "§2, Theorem 1"

DELTA_1, DELTA_2, SIGMA = sympy.symbols("Delta_1 Delta_2 sigma", positive=True)
J = sympy.Symbol("j", positive=True, integer=True)
THETA = sympy.Symbol("theta", positive=True)

EPS_GRID: tuple[Fraction, ...] = tuple(
    Fraction(x) for x in (0, Fraction(1, 10), Fraction(1, 2), 1, 2, 5, 10, 20)
)
# (Δ, σ): the profiles depend on Δ/σ only; θ = Δ/σ ∈ {1/4, 1/2, 1, 4} spans Table 3's and
# Fig. 4's Δ/σ = 1/4 and a large θ (the group sizes j ≤ 3 reach θ = 12): issue 14, a grid must
# not skip the small and large θ where the tails of Φ and the [·]_+ kink sit
PARAMS: tuple[tuple[Fraction, Fraction], ...] = (
    (Fraction(1), Fraction(1)), (Fraction(1), Fraction(2)),
    (Fraction(1), Fraction(4)), (Fraction(4), Fraction(1)),
)
GROUP_SIZES = (1, 2, 3)

HOLD_REL = Fraction(1, 10**30)
HOLD_ABS_AT_ZERO = Fraction(1, 10**50)
REFUTE_REL = Fraction(1, 10**6)

# ---------------------------------------------------------------- printed formulas

# (a) δ_M(ε) = [1 − exp((ε − Δ_1/σ)/2)]_+
LAPLACE_PRINTED = sympy.Max(0, 1 - sympy.exp((EPS - DELTA_1 / SIGMA) / 2))
# (b) δ_M(ε) = Φ(θ/2 − ε/θ) − e^ε Φ(−θ/2 − ε/θ), θ = Δ_2/σ
GAUSS_PRINTED = (
    normal_cdf(THETA / 2 - EPS / THETA) - sympy.exp(EPS) * normal_cdf(-THETA / 2 - EPS / THETA)
).subs(THETA, DELTA_2 / SIGMA)
# Group profiles: "substituting the global sensitivities Δ_p in Theorem 1 with jΔ_p".
LAPLACE_GROUP_PRINTED = LAPLACE_PRINTED.subs(DELTA_1, J * DELTA_1)
GAUSS_GROUP_PRINTED = GAUSS_PRINTED.subs(DELTA_2, J * DELTA_2)

LAPLACE_LATEX = (
    r"\delta_{\mathcal{M}}(\epsilon)=[1-\mbox{exp}((\epsilon-\Delta_{1}/\sigma)/2)]_{+}"
    r" \text{ for } \mathcal{M}: f(X)+\mbox{Lap}(0,\sigma);\quad"
    r" \delta_{\mathcal{M},j}: \Delta_1 \to j\Delta_1"
)
GAUSS_LATEX = (
    r"\delta_{\mathcal{M}}(\epsilon)=\Phi(\theta/2-\epsilon/\theta)"
    r"-e^{\epsilon}\Phi(-\theta/2-\epsilon/\theta),\ \theta=\Delta_{2}/\sigma"
    r" \text{ for } \mathcal{M}: f(X)+\mathcal{N}(0,\sigma^{2}I);\quad"
    r" \delta_{\mathcal{M},j}: \Delta_2 \to j\Delta_2"
)


# ---------------------------------------------------------------- decision


def _mag(b: Bracket) -> Fraction:
    return max(abs(b.lo), abs(b.hi))


def decide(printed: Bracket, ref: Bracket) -> tuple[Verdict, str]:
    """The rule in the module docstring; the note names the relative discrepancy."""
    span = max(printed.hi, ref.hi) - min(printed.lo, ref.lo)
    scale = max(_mag(printed), _mag(ref))
    gap = max(printed.lo - ref.hi, ref.lo - printed.hi, Fraction(0))
    if ref == Bracket.point(0):
        if span <= HOLD_ABS_AT_ZERO:
            return Verdict.HOLDS, "reference exactly 0"
    elif span <= HOLD_REL * scale:
        return Verdict.HOLDS, ""
    if gap > REFUTE_REL * scale:
        return Verdict.REFUTED, ("printed and reference differ by "
                                 f"{number_text(float(gap / scale), 3)} rel.")
    return Verdict.INCONCLUSIVE, (
        f"brackets neither agree to 1e-30 nor separate by 1e-6 (span/scale = "
        f"{number_text(float(span / scale) if scale else 0.0, 3)})"
    )


# ---------------------------------------------------------------- checker

Reference = Callable[[Fraction, Fraction], tuple[Bracket, str]]


def _check(
    budget: Budget, claim: str, profile: sympy.Expr, group: sympy.Expr,
    delta_sym: sympy.Symbol, reference: Reference, profile_text: str, group_text: str,
) -> ClaimResult:
    statements = []
    parts = ((profile, (1,), profile_text, False), (group, GROUP_SIZES, group_text, True))
    for expr, sizes, text, is_group in parts:
        results: list[InstanceResult] = []
        for d, s in PARAMS:
            for j in sizes:
                for eps in EPS_GRID:
                    if budget.spent():
                        break
                    if budget.fail_fast and any(r.verdict is Verdict.REFUTED for r in results):
                        break
                    subs = {EPS: eps, delta_sym: d, SIGMA: s, J: j}
                    params = {"epsilon": str(eps), str(delta_sym): str(d), "sigma": str(s)}
                    if is_group:
                        params["j"] = j
                    ref, how = reference(eps, j * d / s)
                    try:
                        printed = bracket_special(expr, subs)
                    except ValueError as exc:
                        results.append(InstanceResult(
                            params, Verdict.INCONCLUSIVE, "printed formula", str(ref),
                            note=f"printed formula not evaluable here ({exc})",
                        ))
                        continue
                    verdict, note = decide(printed, ref)
                    results.append(InstanceResult(
                        params, verdict, f"δ = {printed}", f"hockey-stick {ref}: {how}", note,
                    ))
        statements.append(statement(text, results))
    return ClaimResult(claim, combine(statements), tuple(statements))


def check_laplace(
    budget: Budget, profile: sympy.Expr = LAPLACE_PRINTED,
    group: sympy.Expr = LAPLACE_GROUP_PRINTED, claim: str = "must/thm1:laplace",
) -> ClaimResult:
    """`profile`/`group` are the printed formulas; other values are mutants (tests)."""
    return _check(
        budget, claim, profile, group, DELTA_1, laplace_hockey_stick,
        "Laplace profile δ(ε) = [1 − exp((ε − Δ1/σ)/2)]_+",
        "Laplace group profile δ_j(ε) = [1 − exp((ε − jΔ1/σ)/2)]_+ (Δ1 → jΔ1)",
    )


def check_gauss(
    budget: Budget, profile: sympy.Expr = GAUSS_PRINTED,
    group: sympy.Expr = GAUSS_GROUP_PRINTED, claim: str = "must/thm1:gauss",
) -> ClaimResult:
    """`profile`/`group` are the printed formulas; other values are mutants (tests)."""
    return _check(
        budget, claim, profile, group, DELTA_2, gaussian_hockey_stick,
        "Gaussian profile δ(ε) = Φ(θ/2 − ε/θ) − e^ε Φ(−θ/2 − ε/θ), θ = Δ2/σ",
        "Gaussian group profile: θ = jΔ2/σ (Δ2 → jΔ2)",
    )


CLAIMS = [
    Claim(
        "must/thm1:laplace", PAPER, WHERE,
        "Exact privacy profile of the Laplace mechanism, and its group version (Δ1 → jΔ1)",
        LAPLACE_LATEX, check_laplace,
    ),
    Claim(
        "must/thm1:gauss", PAPER, WHERE,
        "Exact privacy profile of the Gaussian mechanism, and its group version (Δ2 → jΔ2)",
        GAUSS_LATEX, check_gauss,
    ),
]
