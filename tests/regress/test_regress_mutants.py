"""Smoke test of the mutation benchmark (bench/mutants.py): three mutants, each judged."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
import sympy

# the regress modules share one worker (test_regress.py)
pytestmark = pytest.mark.xdist_group("regress")

BENCH = Path(__file__).resolve().parents[2] / "bench" / "mutants.py"


def _bench():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("verifydp_bench_mutants", BENCH)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def test_three_mutants_are_generated_and_judged() -> None:
    b = _bench()
    target = next(t for t in b._targets() if t.name == "thm4.3 ≈ 6rε")
    muts = b.mutants_of(target)[:3]
    assert len(muts) == 3 and all(m != target.printed for _, m in muts)
    outcomes = [b._judge(target, d, m, 5.0) for d, m in muts]
    caught, non_eq, _ = b.score(outcomes)
    assert caught == non_eq == 3  # the series check compares coefficients exactly
    md = b.markdown(outcomes)
    assert "Claims' own checkers: 3/3 = 100.0%" in md
    assert "comparison with the printed formula: 3/3" in md


def test_sympy_mutants_cover_constants_operators_and_swaps() -> None:
    b = _bench()
    x, y = sympy.symbols("x y")
    descs = [d for d, _ in b.sympy_mutants(sympy.log(1 + 2 * x / y))]
    assert any("constant 2" in d for d in descs)
    assert any("drop log" in d for d in descs)
    assert any("swap x ↔ y" in d for d in descs)
    assert any("sum → product" in d for d in descs)


def test_ast_mutants_of_a_python_formula() -> None:
    b = _bench()
    from verifydp.claims.must import amplification as must_pa

    muts = b.ast_mutants(must_pa.t2_wor, ("n", "m"))
    assert any("variable n → m" in d for d, _ in muts)
    assert all(f(4, 2) != must_pa.t2_wor(4, 2) for d, f in muts if "constant" not in d)
