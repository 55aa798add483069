"""Two-stage MUltistage Sampling Technique (MUST) designs and the law of one record's count.

Zhao & Liu, "MUltistage Sampling Technique (MUST)", Definition 4 (cited below as MUST):

* MUST.OW(n, b, m): b distinct records without replacement, then m draws with replacement
  from those b (the frequencies are Multinomial(m, 1_b / b)).
* MUST.WO(n, b, m): b draws with replacement, then m of those b drawn points (a multiset)
  without replacement.
* MUST.WW(n, b, m): b draws with replacement, then m draws with replacement from them.

The final sample is a multiset, so a count may exceed the type's multiplicity. Each law is
the composition of two stage laws over count vectors: stage I is SRSWOR(b) or SRSWR(b) of
the population, stage II is SRSWR(m) or SRSWOR(m) of the intermediate multiset, read as a
population over the same universe. The paper states b < n and m < b; we allow the
boundary cases b <= n (MUST.OW) and m <= b (MUST.WO), which are still well defined.

`k_law` gives the exact law of K, the number of copies of one given record in the final
sample, from the closed forms of MUST Theorem 5; `eta` gives eta = Pr(K >= 1) exactly and
`eta_bracket` a rigorous dyadic bracket that stays cheap at n = 10^6, b = 5 * 10^4.

Finding (checked exactly in tests/test_designs_must.py): MUST.WO(b, m) and SRSWR(m) have
the same sample law (MUST Corollary 6 holds). A uniform m-subset of the positions of b
i.i.d. uniform draws is itself m i.i.d. uniform draws, so b drops out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from math import comb
from typing import Any, ClassVar

from verifydp.designs.base import Design, DesignError
from verifydp.designs.simple import SRSWOR, SRSWR, check_int, exact_fraction
from verifydp.exact.dist import FiniteDist
from verifydp.population import CountVector, Population, Universe

SCHEMES = ("wor", "wr", "must-ow", "must-wo", "must-ww")


def _as_population(v: CountVector, universe: Universe) -> Population:
    """An intermediate multiset (count vector) as a population over the same universe."""
    return Population.of(zip(universe, v, strict=True))


def _compose(
    stage1: FiniteDist[CountVector],
    stage2: Callable[[Population], FiniteDist[CountVector]],
    universe: Universe,
) -> FiniteDist[CountVector]:
    return FiniteDist.mixture((p, stage2(_as_population(v, universe))) for v, p in stage1)


def _check_sizes(b: object, m: object) -> None:
    if check_int("b", b) < 0:
        raise DesignError(f"stage-1 size b = {b} is negative")
    if check_int("m", m) < 0:
        raise DesignError(f"stage-2 size m = {m} is negative")


def _wr_stage1(pop: Population, universe: Universe, b: int, label: str) -> FiniteDist[CountVector]:
    if pop.size == 0 and b > 0:
        raise DesignError(f"{label}: cannot draw b = {b} records from an empty population")
    return SRSWR(b).sample_law(pop, universe)


def _stage2_wr(m: int, b: int, label: str) -> None:
    if b == 0 and m > 0:
        raise DesignError(f"{label}: cannot draw m = {m} points from an empty stage-1 sample")


@dataclass(frozen=True)
class _Must(Design):
    b: int
    m: int

    def __post_init__(self) -> None:
        _check_sizes(self.b, self.m)

    def params(self) -> dict[str, Any]:
        return {"b": self.b, "m": self.m}

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> _Must:
        return cls(int(params["b"]), int(params["m"]))


@dataclass(frozen=True)
class MustOW(_Must):
    """MUST.OW(n, b, m): SRSWOR of b records, then m draws with replacement from them."""

    kind: ClassVar[str] = "must-ow"

    def __post_init__(self) -> None:
        super().__post_init__()
        _stage2_wr(self.m, self.b, "MUST.OW")

    def sample_law(self, pop: Population, universe: Universe) -> FiniteDist[CountVector]:
        if self.b > pop.size:
            raise DesignError(
                f"MUST.OW: stage-1 size b = {self.b} exceeds population size {pop.size}"
            )
        stage1 = SRSWOR(self.b).sample_law(pop, universe)
        return _compose(stage1, lambda p: SRSWR(self.m).sample_law(p, universe), universe)


@dataclass(frozen=True)
class MustWO(_Must):
    """MUST.WO(n, b, m): b draws with replacement, then m of them without replacement."""

    kind: ClassVar[str] = "must-wo"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.m > self.b:
            raise DesignError(
                f"MUST.WO: stage-2 size m = {self.m} exceeds stage-1 size b = {self.b}"
            )

    def sample_law(self, pop: Population, universe: Universe) -> FiniteDist[CountVector]:
        stage1 = _wr_stage1(pop, universe, self.b, "MUST.WO")
        return _compose(stage1, lambda p: SRSWOR(self.m).sample_law(p, universe), universe)


@dataclass(frozen=True)
class MustWW(_Must):
    """MUST.WW(n, b, m): b draws with replacement, then m draws with replacement from them."""

    kind: ClassVar[str] = "must-ww"

    def __post_init__(self) -> None:
        super().__post_init__()
        _stage2_wr(self.m, self.b, "MUST.WW")

    def sample_law(self, pop: Population, universe: Universe) -> FiniteDist[CountVector]:
        stage1 = _wr_stage1(pop, universe, self.b, "MUST.WW")
        return _compose(stage1, lambda p: SRSWR(self.m).sample_law(p, universe), universe)


# --- the law of K, the number of copies of one given record ---


def _binom_pmf(trials: int, p: Fraction) -> list[Fraction]:
    return [comb(trials, k) * p**k * (1 - p) ** (trials - k) for k in range(trials + 1)]


def _hyper_pmf(total: int, marked: int, draws: int) -> list[Fraction]:
    """Law of the marked items among `draws` taken without replacement from `total`."""
    denom = comb(total, draws)
    return [
        Fraction(comb(marked, k) * comb(total - marked, draws - k), denom)
        for k in range(min(marked, draws) + 1)
    ]


def _check_scheme(scheme: str, n: int, b: int | None, m: int) -> int:
    """Validate (scheme, n, b, m); returns b (0 where the scheme has no stage-1 size)."""
    if scheme not in SCHEMES:
        raise DesignError(f"unknown scheme {scheme!r}; known: {list(SCHEMES)} (and poisson)")
    if check_int("n", n) < 1:
        raise DesignError(f"population size n = {n} must be at least 1")
    if check_int("m", m) < 0:
        raise DesignError(f"sample size m = {m} is negative")
    if scheme in ("wor", "wr"):
        if scheme == "wor" and m > n:
            raise DesignError(f"m = {m} exceeds population size {n}")
        return 0
    if b is None:
        raise DesignError(f"{scheme} needs a stage-1 size b")
    _check_sizes(b, m)
    if scheme == "must-ow" and b > n:
        raise DesignError(f"MUST.OW: stage-1 size b = {b} exceeds population size {n}")
    if scheme == "must-wo" and m > b:
        raise DesignError(f"MUST.WO: stage-2 size m = {m} exceeds stage-1 size b = {b}")
    if scheme in ("must-ow", "must-ww"):
        _stage2_wr(m, b, scheme)
    return b


def k_law_poisson(n: int, q: Fraction | int | str) -> FiniteDist[int]:
    """Poisson(q): K ~ Bernoulli(q), whatever n."""
    if check_int("n", n) < 1:
        raise DesignError(f"population size n = {n} must be at least 1")
    q = exact_fraction("q", q)
    if not 0 <= q <= 1:
        raise DesignError(f"sampling probability must be in [0, 1], got q = {q}")
    return FiniteDist.from_pairs([(0, 1 - q), (1, q)])


def k_law(scheme: str, n: int, b: int | None, m: int) -> FiniteDist[int]:
    """Exact law of K = copies of one given record among the final sample of size m.

    WOR: Bernoulli(m/n). WR: Binomial(m, 1/n). MUST.OW: with prob. b/n the record is among
    the b, then Binomial(m, 1/b). MUST.WO: J ~ Binomial(b, 1/n) copies after stage I, then
    K | J ~ Hypergeometric(b, J, m). MUST.WW: J as for WO, then K | J ~ Binomial(m, J/b).
    `b` is ignored (pass None) for WOR and WR. Cost is O(b * m) Fraction operations:
    small inputs only; use `eta` / `eta_bracket` at benchmark sizes.
    """
    b = _check_scheme(scheme, n, b, m)
    if scheme == "wor":
        p = Fraction(m, n)
        return FiniteDist.from_pairs([(0, 1 - p), (1, p)])
    if scheme == "wr":
        return FiniteDist.from_pairs(enumerate(_binom_pmf(m, Fraction(1, n))))
    if b == 0:  # m = 0 too, checked above
        return FiniteDist.point(0)
    if scheme == "must-ow":
        inside = Fraction(b, n)
        pairs = [(0, 1 - inside)]
        pairs += [(k, inside * p) for k, p in enumerate(_binom_pmf(m, Fraction(1, b)))]
        return FiniteDist.from_pairs(pairs)
    acc: dict[int, Fraction] = {}
    for j, pj in enumerate(_binom_pmf(b, Fraction(1, n))):
        if not pj:
            continue
        inner = _hyper_pmf(b, j, m) if scheme == "must-wo" else _binom_pmf(m, Fraction(j, b))
        for k, pk in enumerate(inner):
            acc[k] = acc.get(k, Fraction(0)) + pj * pk
    return FiniteDist.from_pairs(acc.items())


# --- eta = Pr(K >= 1), exact and bracketed ---


def _ww_sum(n: int, b: int, m: int, top: int) -> int:
    """sum_{j=0}^{top} C(b,j) (n-1)^(b-j) (b-j)^m, the numerator of
    Pr(J <= top and K = 0) under MUST.WW over the denominator n^b b^m (Horner in n-1)."""
    acc = 0
    for j in range(top + 1):  # inner = sum_j C(b,j) (b-j)^m (n-1)^(top-j)
        acc = acc * (n - 1) + comb(b, j) * (b - j) ** m
    return acc * (n - 1) ** (b - top)


def eta(scheme: str, n: int, b: int | None, m: int) -> Fraction:
    """Exact eta = Pr(K >= 1) (MUST Table 2), from closed forms.

    WOR: m/n. WR and MUST.WO (Corollary 6): 1 - (1 - 1/n)^m. MUST.OW: (b/n)(1 - (1 - 1/b)^m).
    MUST.WW: 1 - sum_j Binom(b, 1/n)(j) (1 - j/b)^m, summed over all b + 1 terms in integer
    arithmetic: exact, but its cost grows like b * (digits of n^b b^m); prefer
    `eta_bracket` for b in the tens of thousands (at n = 10^6, b = 5 * 10^4, m = 10^4 the
    exact sum ran over 5 minutes unfinished; the 2^-256 bracket takes about 0.2 s).
    """
    b = _check_scheme(scheme, n, b, m)
    if scheme == "wor":
        return Fraction(m, n)
    if scheme in ("wr", "must-wo"):
        return Fraction(n**m - (n - 1) ** m, n**m)
    if b == 0:  # MUST.OW or MUST.WW with b = m = 0
        return Fraction(0)
    if scheme == "must-ow":
        return Fraction(b * (b**m - (b - 1) ** m), n * b**m)
    denom = n**b * b**m
    return Fraction(denom - _ww_sum(n, b, m, b), denom)


def eta_bracket(
    scheme: str, n: int, b: int | None, m: int, bits: int = 256
) -> tuple[Fraction, Fraction]:
    """Rigorous bracket lo <= eta <= hi with dyadic ends, hi - lo <= 2^-bits.

    For MUST.WW the sum over J is cut at the first t with C(b, t+1) n^-(t+1) <= 2^-(bits+2)
    (a union bound on Pr(J >= t+1), which dominates the neglected terms since
    (1 - j/b)^m <= 1); the kept terms are summed exactly in integers. Other schemes round
    the exact closed form outward.
    """
    b = _check_scheme(scheme, n, b, m)
    if check_int("bits", bits) < 1:
        raise DesignError(f"bits = {bits} must be at least 1")
    scale = 1 << (bits + 2)
    if scheme != "must-ww" or b == 0:
        x = eta(scheme, n, b, m)
        lo = x.numerator * scale // x.denominator
        return Fraction(lo, scale), Fraction(-(-x.numerator * scale // x.denominator), scale)
    top = 0
    while top < b and comb(b, top + 1) * scale > n ** (top + 1):
        top += 1
    tail = Fraction(comb(b, top + 1), n ** (top + 1)) if top < b else Fraction(0)
    denom = n**b * b**m
    # num/denom = 1 - Pr(J <= top, K = 0) = eta + Pr(J > top, K = 0), in [eta, eta + tail]
    num = denom - _ww_sum(n, b, m, top)
    hi = Fraction(-(-num * scale // denom), scale)
    tail_up = Fraction(-(-tail.numerator * scale // tail.denominator), scale)
    lo = Fraction(num * scale // denom, scale) - tail_up
    return max(lo, Fraction(0)), hi


# --- the head of the law of K at full size (issue 16) ---


def k_law_head(scheme: str, n: int, b: int | None, m: int, tail: float = 1e-15
               ) -> list[Fraction]:
    """Exact Pr(K = k) for k = 0, 1, … up to the first k where the remaining mass is below
    `tail` (a float only chooses where to stop; every returned mass is exact).

    One integer numerator per k over the common denominator (n^b b^m for MUST.WW, n^b C(b, m)
    for MUST.WO), summed over the stage-I copies j: O(b) big-integer steps per k instead of
    the O(b·m) Fractions of `k_law`, so N = 10^6 with b, m in the thousands is cheap."""
    b = _check_scheme(scheme, n, b, m)
    if scheme in ("wor", "wr", "must-ow") or b == 0:
        law = k_law(scheme, n, b, m)
        out, acc = [], Fraction(0)
        for k in range(max(law.support()) + 1):
            out.append(law.prob(k))
            acc += out[-1]
            if float(1 - acc) < tail:
                break
        return out
    jw = [comb(b, j) * (n - 1) ** (b - j) for j in range(b + 1)]
    den = n**b * (comb(b, m) if scheme == "must-wo" else b**m)
    out, acc = [], Fraction(0)
    for k in range(m + 1):
        if scheme == "must-wo":
            num = sum(jw[j] * comb(j, k) * comb(b - j, m - k) for j in range(k, b + 1))
        else:
            num = comb(m, k) * sum(jw[j] * j**k * (b - j) ** (m - k) for j in range(b + 1))
        out.append(Fraction(num, den))
        acc += out[-1]
        if float(1 - acc) < tail:
            break
    return out
