"""Shuffling into fixed batches (issue 16, item 3): the certified bracket [Chua et al.'s max
test, one unamplified release per epoch] against exact δ(ε) of concrete dataset pairs on a
tiny population, the test's probabilities against a simulated loader, mutants caught, bad
files refused, and the example end to end."""

from __future__ import annotations

import copy
import functools
import itertools
import json
import math
from collections import Counter
from fractions import Fraction as F
from pathlib import Path
from typing import Any

import mpmath
import numpy as np
import pytest

from verifydp.accounting import Grid, composed, law_pair
from verifydp.accounting.shuffle import max_test_probabilities, shuffle_lower
from verifydp.audit.deployment import audit_deployment, shuffle_delta
from verifydp.audit.spec import DesignFileError, parse_design
from verifydp.cli.main import main
from verifydp.exact.special import exp as exp_bracket
from verifydp.exact.special import ncdf

# one xdist_group for the module (issue 29): the mutant test reads the exact δ(ε) of the bracket
# test's first pair (exact_delta's lru_cache), computed once when both run on one worker
pytestmark = pytest.mark.xdist_group("shuffle")

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "deploy_dpsgd_shuffle.toml"
EPS = (F(0), F(1), F(3))


def tiny(sigma: F, size: int = 4, batch: int = 2, steps: int | None = None,
         kind: str = "gaussian") -> dict[str, Any]:
    noise = {"sigma": str(sigma)} if kind == "gaussian" else {"scale": str(sigma)}
    return {"population": {"size": size}, "design": {"kind": "shuffle", "batch": batch},
            "base": {"epsilon": 1}, "protect": {"relation": "substitution"},
            "target": {"epsilon": 1, "delta": "1/100000"},
            "mechanism": {"kind": kind, "query": "sum", "clip": 1, **noise},
            "composition": {"steps": steps or size // batch, "delta": "1/100000"}}


def _upper(sigma: F, eps: F) -> F:
    return shuffle_delta(parse_design(tiny(sigma)), 2, Grid(F(1, 500)))(eps).hi


def _lower(sigma: F, eps: F) -> F:
    return shuffle_delta(parse_design(tiny(sigma)), 2, Grid(F(1, 500)))(eps).lo


# ---------------------------------------------------------------- exact δ(ε), N = 4, b = 2


@functools.lru_cache(maxsize=64)
def exact_delta(others: tuple[float, ...], before: float, after: float, sigma: F,
                eps: F) -> mpmath.mpf:
    """δ(ε) = max over both orders of ∫∫ (p − e^ε q)_+ for one epoch of N = 4, b = 2 (two
    released batch sums plus N(0, σ²) each), 30 digits. Both batch sums add up to the
    dataset's total, so in u = (y₁+y₂)/√2, v = (y₁−y₂)/√2 each law is N(total/√2, σ²) times
    a v-mixture over the 6 equally likely splits; for fixed v the u-integral is the Gaussian
    pair's closed form (its loss is linear in u), leaving one smooth integral over v."""
    mpmath.mp.dps = 30
    s = mpmath.mpf(float(sigma))
    r2 = mpmath.sqrt(2)

    def law(values: tuple[float, ...]) -> tuple[mpmath.mpf, list[tuple[mpmath.mpf, mpmath.mpf]]]:
        splits: Counter[mpmath.mpf] = Counter()
        for perm in itertools.permutations(range(4)):
            a = sum(mpmath.mpf(values[i]) for i in perm[:2])
            b = sum(mpmath.mpf(values[i]) for i in perm[2:])
            splits[(a - b) / r2] += 1
        return (mpmath.fsum(mpmath.mpf(v) for v in values) / r2,
                [(mpmath.mpf(c) / 24, m) for m, c in splits.items()])

    (up, vp), (uq, vq) = law((*others, after)), law((*others, before))
    m = abs(up - uq) / s

    def gauss_delta(e: mpmath.mpf) -> mpmath.mpf:  # H_{e^e}(N(m, 1) ‖ N(0, 1)), any real e
        return mpmath.ncdf(-e / m + m / 2) - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2)

    def mix(v: mpmath.mpf, comps: list[tuple[mpmath.mpf, mpmath.mpf]]) -> mpmath.mpf:
        return mpmath.fsum(w * mpmath.npdf(v, c, s) for w, c in comps)

    # both v-mixtures at a node, shared by both orders and every ε of this pair (the
    # quadrature visits the same nodes each time; issue 29: they were recomputed six times)
    dens = _MIXTURES.setdefault((others, before, after, sigma), {})

    def mixtures(v: mpmath.mpf) -> tuple[mpmath.mpf, mpmath.mpf]:
        if v not in dens:
            dens[v] = (mix(v, vp), mix(v, vq))
        return dens[v]

    e = mpmath.mpf(eps.numerator) / eps.denominator
    reach = 12 * s + 4
    cuts = sorted({-reach, reach, *(c for _, c in vp + vq)})
    out = []
    for flip in (False, True):  # p against q, then q against p
        def f(v: mpmath.mpf, flip: bool = flip) -> mpmath.mpf:
            pa, pb = mixtures(v)[::-1] if flip else mixtures(v)
            return pa * gauss_delta(e - mpmath.log(pa / pb))
        out.append(mpmath.quad(f, cuts))
    return max(out)


_MIXTURES: dict[tuple[Any, ...], dict[mpmath.mpf, tuple[mpmath.mpf, mpmath.mpf]]] = {}


PAIRS = [  # (others, before, after); the first is the realisable pair of the lower bound
    ((-1.0, -1.0, -1.0), -1.0, 1.0),
    ((1.0, -1.0, 0.0), -1.0, 1.0),
    ((0.5, 0.5, 0.5), 1.0, -1.0),
    ((-1.0, 1.0, 1.0), 0.25, -0.75),
]


@pytest.mark.parametrize("sigma,pairs", [(F(1), 4), (F(2), 2)])
def test_bracket_against_exact_pairs(sigma: F, pairs: int) -> None:
    fn = shuffle_delta(parse_design(tiny(sigma)), 2, Grid(F(1, 500)))
    for eps in EPS:
        b = fn(eps)
        for i, (others, before, after) in enumerate(PAIRS[:pairs]):
            ex = exact_delta(others, before, after, sigma, eps)
            assert ex <= mpmath.mpf(b.hi.numerator) / b.hi.denominator, (sigma, eps, i)
            if i == 0:  # the lower end is a test on this very pair
                assert mpmath.mpf(b.lo.numerator) / b.lo.denominator <= ex, (sigma, eps)
                assert b.lo > 0 and float(b.lo) > 0.9 * float(ex) - 1e-3  # and not vacuous


# ---------------------------------------------------------------- add/remove, N = 7, b = 3


def batch_law(values: tuple[float, ...], batch: int = 3, batches: int = 2
              ) -> list[tuple[float, tuple[float, ...]]]:
    """The law of the released batch sums of one epoch: every arrangement of the records into
    `batches` ordered batches of `batch` (the rest sit out) is equally likely."""
    n = len(values)
    sums: Counter[tuple[float, ...]] = Counter()
    for first in itertools.combinations(range(n), batch):
        rest = [i for i in range(n) if i not in first]
        for second in itertools.combinations(rest, batch):
            sums[(sum(values[i] for i in first), sum(values[i] for i in second))] += 1
    total = sum(sums.values())
    return [(c / total, m) for m, c in sums.items()]


def exact_delta_2d(p_law: list[tuple[float, tuple[float, ...]]],
                   q_law: list[tuple[float, tuple[float, ...]]], sigma: float,
                   eps: tuple[F, ...]) -> list[tuple[float, float]]:
    """δ(ε) = max over both orders of ∫∫ (p − e^ε q)_+ for two Gaussian mixtures in the plane
    (two released batches plus N(0, σ²) each), with an error estimate: the trapezoid rule on
    grids of step σ/48 and σ/96 (exponentially accurate for the smooth parts; the kink of
    (·)_+ makes it O(h²), so the two grids' difference, ×4, bounds the error — a reference,
    not a certificate)."""
    means = [m for _, m in p_law + q_law]
    lo = min(min(m) for m in means) - 10 * sigma
    hi = max(max(m) for m in means) + 10 * sigma

    def on_grid(h: float) -> list[float]:
        y = np.arange(lo, hi + h, h)

        def dens(law: list[tuple[float, tuple[float, ...]]]) -> np.ndarray:
            phi = lambda m: np.exp(-((y - m) / sigma) ** 2 / 2) / (sigma * math.sqrt(2 * math.pi))  # noqa: E731
            # Σ_k w_k φ(m_k0) ⊗ φ(m_k1) as one (n × K)(K × n) product (issue 29: a sum of K
            # outer products, each a grid of its own, was most of this test's time)
            first = np.stack([w * phi(m[0]) for w, m in law], axis=1)
            return first @ np.stack([phi(m[1]) for _, m in law])

        p, q = dens(p_law), dens(q_law)
        return [max(float(np.maximum(a - math.exp(float(e)) * b, 0).sum()) * h * h
                    for a, b in ((p, q), (q, p))) for e in eps]

    coarse, fine = on_grid(sigma / 48), on_grid(sigma / 96)
    return [(f, 4 * abs(f - c) + 1e-12) for c, f in zip(coarse, fine, strict=True)]


ADD_PAIRS = [  # (others, record): D = others + record against D' = others
    ((-1.0,) * 6, 1.0),                  # the lower end's pair: 7 vs 6 records
    ((-1.0,) * 7, 1.0),                  # the other orientation: 8 vs 7 records
    ((1.0, -1.0, 0.5, 0.0, -0.5, 1.0), -1.0),
    ((0.25, -1.0, 1.0, 1.0, -1.0, 0.0, 0.5), 1.0),
]


def test_add_remove_bracket_against_exact_pairs() -> None:
    """N = 7, b = 3: N mod b = 1, so 6, 7 and 8 records all cut two batches. The bracket
    (the substitution one, by the coupling of proofs/deployment_pairs.md#shuffle) holds every
    pair in both orientations, its lower end is below the realisable pair's exact δ, and the
    upper end at the add/remove sensitivity C (no trade with a record that sits out) is
    beaten: the coupling's substitution is needed."""
    sigma = F(1)
    obj = tiny(sigma, size=7, batch=3)
    obj["protect"]["relation"] = "add-remove"
    fn = shuffle_delta(parse_design(obj), 2, Grid(F(1, 500)))
    assert fn(F(1)) == shuffle_delta(parse_design(tiny(sigma, size=7, batch=3)), 2,
                                     Grid(F(1, 500)))(F(1))
    wrong_up = composed(law_pair(((1, F(1)),), F(1), sigma, "gauss", "added"), 1,
                        Grid(F(1, 500)))
    beaten = False
    for i, (others, rec) in enumerate(ADD_PAIRS):
        refs = exact_delta_2d(batch_law((*others, rec)), batch_law(others), 1.0, EPS)
        for eps, (ex, err) in zip(EPS, refs, strict=True):
            b = fn(eps)
            assert ex <= float(b.hi) + err, (eps, i)
            if i == 0:
                assert float(b.lo) <= ex + err and float(b.lo) > 0.9 * ex - 1e-3, eps
                beaten |= ex - err > float(wrong_up.delta(eps).hi)
    assert beaten


# ---------------------------------------------------------------- the test's probabilities


@pytest.mark.parametrize("kernel", ["gauss", "laplace"])
def test_max_test_probabilities_match_a_simulated_loader(kernel: str) -> None:
    """N = 10, b = 3 (3 batches, one record dropped per epoch): the loader simulated, the
    record's batch released with probability 9/10; both probabilities within 5 s.e."""
    rng = np.random.default_rng(7)
    n, b, sims, mu = 10, 3, 200_000, F(3, 2)
    # all values equal, so every batch sum is the same: outputs in noise units, centred
    order = rng.permuted(np.tile(np.arange(n), (sims, 1)), axis=1)[:, : 3 * b].reshape(sims, 3, b)
    shifted = (order == 0).any(axis=2) * float(mu)  # the record (index 0) moves by μ
    noise = rng.standard_normal((sims, 3)) if kernel == "gauss" else rng.laplace(0, 1, (sims, 3))
    for tau in (F(0), F(3, 2), F(3)):
        hit_q = (noise.max(axis=1) >= float(tau)).mean()
        hit_p = ((noise + shifted).max(axis=1) >= float(tau)).mean()
        p, q = max_test_probabilities(kernel, mu, tau, 3, F(9, 10))
        for sim, ball in ((hit_p, p), (hit_q, q)):
            se = math.sqrt(max(sim * (1 - sim), 1e-6) / sims)
            assert abs(sim - float(ball.mid())) < 5 * se, (kernel, tau)
            assert float(ball.rad()) < 1e-12
        if kernel == "gauss":  # the formula by quadrature (mpmath, not the package's Φ)
            mpmath.mp.dps = 30
            t = mpmath.mpf(tau.numerator) / tau.denominator
            f = mpmath.quad(mpmath.npdf, [-mpmath.inf, t])
            g = mpmath.quad(lambda x: mpmath.npdf(x, mpmath.mpf(3) / 2), [-mpmath.inf, t])
            want = 1 - (mpmath.mpf(9) / 10 * g * f**2 + mpmath.mpf(1) / 10 * f**3)
            assert abs(float(p.mid()) - float(want)) < 1e-13
            assert abs(float(q.mid()) - float(1 - f**3)) < 1e-13


def test_lower_end_grows_with_epochs_and_is_certified() -> None:
    """More epochs can only reveal more (dropping outputs is post-processing)."""
    one = shuffle_lower("gauss", F(2), 2, 4, 2, 2)
    five = shuffle_lower("gauss", F(2), 2, 4, 2, 10)
    for eps in (F(1), F(2), F(4)):
        assert five.delta(eps) >= one.delta(eps)
    with pytest.raises(ValueError):
        shuffle_lower("gauss", F(2), 3, 4, 2, 2)  # batches must be N // b


# ---------------------------------------------------------------- mutants


def _round(x: F, up: bool) -> F:
    """x on the grid 2^-200, rounded outward (keeps the Fractions small)."""
    n = x.numerator * 2**200
    return F(-(-n // x.denominator) if up else n // x.denominator, 2**200)


def _max_test(sigma: F, p_of: Any) -> Any:
    """A lower bound δ(ε) computed like the real one but with Pr_{D'} from `p_of(F, G)`
    (both orders, τ on a grid): certified ends, so a mutant above the truth is a failure."""
    mu = 2 / sigma
    ends = []
    for k in range(-96, 9 * 32):
        tau = F(k, 32)
        f, g = ncdf(tau), ncdf(tau - mu)
        pp_lo = _round(p_of(f.hi, g.hi), up=False)  # Pr_{D'} falls as F and G grow
        pq_hi = _round(1 - f.lo**2, up=True)
        ends.append((pp_lo, pq_hi))

    def delta(eps: F) -> F:
        e = exp_bracket(eps).hi
        return max(max(pp - e * pq, (1 - pq) - e * (1 - pp)) for pp, pq in ends)
    return delta


def test_mutants_are_caught() -> None:
    sigma = F(1)
    exact = {eps: exact_delta(*PAIRS[0], sigma, eps) for eps in EPS}

    def above_exact(fn: Any) -> bool:
        return any(mpmath.mpf(fn(e).numerator) / fn(e).denominator > exact[e] for e in EPS)

    # the real lower end, recomputed here, agrees with the module's and is below the truth
    real = _max_test(sigma, lambda f, g: 1 - g * f)
    for eps in EPS:
        assert abs(real(eps) - _lower(sigma, eps)) < F(1, 10**4)
    assert not above_exact(real)
    # upper end with sensitivity C instead of 2C: the certified lower end exceeds it
    wrong_up = composed(law_pair(((1, F(1)),), F(1), sigma, "gauss", "added"), 1,
                        Grid(F(1, 500)))
    assert any(real(eps) > wrong_up.delta(eps).hi for eps in EPS)
    # T + 1 outputs under D' (one unshifted too many): above the exact δ of the pair
    assert above_exact(_max_test(sigma, lambda f, g: 1 - g * f * f))
    # the shift in every batch: above the (correct) upper end
    every = _max_test(sigma, lambda f, g: 1 - g * g)
    assert any(every(eps) > _upper(sigma, eps) for eps in EPS)


# ---------------------------------------------------------------- bad files


def _with(path: str, value: Any, base: dict[str, Any]) -> dict[str, Any]:
    obj = copy.deepcopy(base)
    *head, last = path.split(".")
    node = obj
    for k in head:
        node = node[k]
    node[last] = value
    return obj


BAD = [
    (_with("design.batch", 5, tiny(F(1))), r"^design\.batch: batch size 5 exceeds population"),
    (_with("design.batch", 0, tiny(F(1))), r"^design\.batch: must be at least 1"),
    (_with("design.batch", -2, tiny(F(1))), r"^design\.batch: must be at least 1"),
    (_with("protect.relation", "add-remove", tiny(F(1))),  # N = 4, b = 2: N − 1 cuts one batch
     r"^protect\.relation: add-remove with N mod b = 0: a neighbour of N − 1 records cuts 1 "),
    (_with("protect.relation", "add-remove", tiny(F(1), size=5, batch=3)),
     r"^protect\.relation: add-remove with N mod b = 2: a neighbour of N \+ 1 records cuts 2 "),
    (_with("composition.steps", 3, tiny(F(1))),
     r"^composition\.steps: 3 is not a whole number of epochs \(one epoch = N // batch = 2"),
    (_with("composition.resample", False, tiny(F(1))), r"^composition\.resample: false is not"),
]


@pytest.mark.parametrize("obj,pattern", BAD)
def test_bad_files_are_one_line_usage_errors(obj: dict[str, Any], pattern: str,
                                             tmp_path: Path, capsys: Any) -> None:
    with pytest.raises(DesignFileError, match=pattern):
        parse_design(obj)
    path = tmp_path / "bad.toml"
    path.write_text(_toml(obj), encoding="utf-8")
    assert main(["audit", str(path), "--json", "--no-progress", "--no-witnesses"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and err


def _toml(obj: dict[str, Any]) -> str:
    out = []
    for sec, body in obj.items():
        out.append(f"[{sec}]")
        for k, v in body.items():
            out.append(f"{k} = {json.dumps(v)}")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- the example


def test_example_end_to_end(capsys: Any) -> None:
    code = main(["audit", str(EXAMPLE), "--json", "--no-progress", "--no-witnesses",
                 "--no-grid"])
    out = json.loads(capsys.readouterr().out)
    dep = out["deployment"]
    lo, hi = float(dep["result"]["lo"]), float(dep["result"]["hi"])
    assert code in (0, 1) and dep["steps"] == 234
    assert 3 < lo < hi < 9.5 and dep["relative_width"] > 0.02
    assert dep["target"] == "violated"  # target ε = 3 is below the certified lower end
    assert "no amplification" in dep["note"] and "max test" in dep["note"]
    acct = dep["accountant"]
    if acct["value"] is not None:  # dp-accounting installed: it understates
        assert acct["value"] < lo and acct["understates_by"] > 5
        assert acct["note"].startswith("FLAG")
    assert dep["seconds"] < 60


def test_target_inside_the_bracket_is_undetermined() -> None:
    obj = tiny(F(2), size=40, batch=4)
    dep = audit_deployment(parse_design(obj), curves=False)
    lo, hi = dep.result.lo, dep.result.hi
    assert 0 < lo < hi and dep.relative_width > float(F(1, 50))  # wider than the rtol
    for target, word in (((lo + hi) / 2, "undetermined"), (hi * 2, "met"), (lo / 2, "violated")):
        obj["target"]["epsilon"] = str(target)
        assert audit_deployment(parse_design(obj), curves=False).target == word
