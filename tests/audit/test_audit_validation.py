"""Design files: one clear message naming the field for every malformed or impossible file,
never a traceback (hypothesis fuzz), and the published JSON Schema in sync with the validator."""

from __future__ import annotations

import argparse
import contextlib
import copy
import json
from fractions import Fraction as F
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifydp.audit.bounds import catalogue_bounds
from verifydp.audit.instance import build_instance
from verifydp.audit.schema import dumps
from verifydp.audit.spec import (
    PARAMS,
    DesignFileError,
    loads,
    one_release,
    parse_design,
    tomllib,
)
from verifydp.cli.audit import register, run
from verifydp.cli.main import UsageError
from verifydp.designs import DesignError

ROOT = Path(__file__).resolve().parents[2]

VALID: dict[str, Any] = {
    "population": {"strata": {"small": 30, "large": 10}},
    "design": {"kind": "stratified-fixed", "sizes": {"small": 3, "large": 2}},
    "base": {"epsilon": 1},
    "target": {"epsilon": 1},
}


def _with(path: str, value: Any, base: dict[str, Any] | None = None) -> dict[str, Any]:
    obj = copy.deepcopy(base or VALID)
    *head, last = path.split(".")
    cur = obj
    for k in head:
        cur = cur.setdefault(k, {})
    if value is _DELETE:
        del cur[last]
    else:
        cur[last] = value
    return obj


_DELETE = object()
POISSON = {"population": {"size": 100}, "design": {"kind": "poisson", "q": "1/10"},
           "base": {"epsilon": 1}, "target": {"epsilon": 1}}

BAD = [
    (_with("design.q", 1.5, POISSON), r"^design\.q: probability outside \[0, 1\]"),
    (_with("design.q", -0.1, POISSON), r"^design\.q: probability outside"),
    (_with("design.q", "abc", POISSON), r"^design\.q: must be a number"),
    (_with("design.q", True, POISSON), r"^design\.q: must be a number"),
    (_with("design.sizes.small", 31), r"^design\.sizes\.small: allocation 31 exceeds the "
                                      r"stratum size 30"),
    (_with("design.sizes.medium", 1), r"^design\.sizes\.medium: no such stratum"),
    (_with("design.sizes", {"small": 3}), r"^design\.sizes: no allocation for stratum 'large'"),
    (_with("design.foo", 1), r"^design\.foo: unknown key"),
    (_with("extra", 1), r"^extra: unknown key"),
    (_with("population.strata.small", {"sise": 3}), r"^population\.strata\.small\.sise: "
                                                     "unknown key"),
    (_with("design", {"kind": "proportional", "r": 1, "rounding": "floor"}),
     r"^design\.r: must be in \(0, 1\)"),
    (_with("design", {"kind": "proportional", "r": "0", "rounding": "floor"}),
     r"^design\.r: must be in \(0, 1\)"),
    (_with("design", {"kind": "proportional", "r": "1/2", "rounding": "up"}),
     r"^design\.rounding: must be one of"),
    (_with("population.size", 10**9, POISSON), r"^population\.size: 1000000000 exceeds the "
                                                r"limit"),
    (_with("population", {"clusters": [{"size": 4, "count": 10**6}]}, POISSON),
     r"^population\.clusters\[0\]\.count: 1000000 exceeds the limit"),
    (_with("base.epsilon", 0, POISSON), r"^base\.epsilon: must be in \(0, 20\]"),
    (_with("base.epsilon", float("nan"), POISSON), r"^base\.epsilon: must be finite"),
    (_with("base.delta", 1, POISSON), r"^base\.delta: must be below 1"),
    (_with("base.relation", "neighbours", POISSON), r"^base\.relation: must be 'add-remove'"),
    (_with("target", _DELETE, POISSON), r"^target: missing section"),
    (_with("design.kind", "bootstrap", POISSON), r"^design\.kind: must be one of"),
    (_with("design", {"kind": "srswor", "m": 101}, POISSON), r"^design\.m: sample size 101 "
                                                              r"exceeds population size 100"),
    (_with("design", {"kind": "srswor"}, POISSON), r"^design\.m: missing"),
    (_with("design", {"kind": "random-size", "size_law": {"1": 0.5, "2": 0.4}}, POISSON),
     r"^design\.size_law: probabilities must sum to 1"),
    (_with("design", {"kind": "must-wo", "b": 10, "m": 20}, POISSON),
     r"^design\.m: stage-2 size 20 exceeds stage-1 size"),
    (_with("design", {"kind": "cluster-srs", "ell": 2}, POISSON),
     r"^population\.clusters: missing \(required by design kind cluster-srs\)"),
    (_with("design", {"kind": "cluster-srs", "ell": 5},
           _with("population", {"clusters": [3, 3, 4]}, POISSON)),
     r"^design\.ell: must be in \[1, 3\]"),
    (_with("population.size", 50), r"^population\.strata: add up to 40 records, but "
                                   r"population\.size is 50"),
    (_with("design", {"kind": "stratified-neyman", "m": 5, "rounding": "half-up"}),
     r"^population\.strata\.\w+\.values: Neyman allocation needs the record values"),
    (_with("target.delta", 0, _with("base.delta", "1/10", POISSON)),
     r"^target\.delta: is 0, but a base with δ > 0"),
]


@pytest.mark.parametrize("obj,pattern", BAD)
def test_bad_design_names_the_field(obj: dict[str, Any], pattern: str) -> None:
    with pytest.raises(DesignFileError, match=pattern) as exc:
        parse_design(obj)
    assert "\n" not in str(exc.value)


def test_valid_base_parses() -> None:
    spec = parse_design(VALID)
    assert spec.size == 40 and spec.kind == "stratified-fixed"


def test_toml_syntax_error() -> None:
    with pytest.raises(DesignFileError, match="not valid TOML"):
        loads("[design\nkind = 1")


def test_cli_exit_2_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The lead's main() turns UsageError into one line and exit 2 (verifydp/cli/main.py); the
    harness here does the same."""
    bad = tmp_path / "d.toml"
    bad.write_text('[population]\nsize = 5\n[design]\nkind = "srswor"\nm = 9\n'
                   '[base]\nepsilon = 1\n[target]\nepsilon = 1\n', encoding="utf-8")
    parser = argparse.ArgumentParser(prog="verifydp")
    register(parser.add_subparsers(dest="command", required=True))
    with pytest.raises(UsageError) as exc:
        run(parser.parse_args(["audit", str(bad)]))
    msg = str(exc.value)
    assert "design.m" in msg and "\n" not in msg


# ---------------------------------------------------------------- fuzz

KEYS = ["population", "design", "base", "target", "protect", "audit", "name", "size",
        "strata", "clusters", "size_classes", "kind", "q", "m", "r", "b", "ell", "interval",
        "rounding", "sizes", "size_law", "within", "epsilon", "delta", "relation",
        "expected_size", "measure", "count", "values", "range", "max_value", "instance_size",
        "eps_grid", "variance", "small", "large", "1", "2"]
SCALARS = st.one_of(
    st.integers(-5, 50), st.sampled_from([0, 1, 2, 10**8, -1]),
    st.floats(allow_nan=True, allow_infinity=True), st.booleans(),
    st.sampled_from(["1/2", "0.25", "abc", "1/0", "poisson", "srswor", "stratified-fixed",
                     "cluster-srs", "must-ww", "half-up", "randomised", "add-remove",
                     "replace", "srs", "", "stratified-neyman", "poisson-pps"]),
)
TOMLISH = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.sampled_from(KEYS), inner, max_size=5)),
    max_leaves=25,
)


def _only_design_file_errors(obj: object) -> None:
    try:
        parse_design(obj)
    except DesignFileError as exc:
        assert "\n" not in str(exc)


@settings(max_examples=200)
@given(st.dictionaries(st.sampled_from(KEYS), TOMLISH, max_size=6))
def test_fuzz_random_dicts_never_traceback(obj: dict[str, Any]) -> None:
    _only_design_file_errors(obj)


EXAMPLE_DICTS = [
    POISSON, VALID,
    {"population": {"clusters": [3, 3, 4]}, "design": {"kind": "cluster-srs", "ell": 1},
     "base": {"epsilon": 1}, "target": {"epsilon": 1}},
    {"population": {"size_classes": [{"measure": 1, "count": 5}, {"measure": 3, "count": 2}]},
     "design": {"kind": "poisson-pps", "expected_size": 2}, "base": {"epsilon": 1},
     "target": {"epsilon": 1}},
    {"population": {"size": 30}, "design": {"kind": "must-ow", "b": 10, "m": 5},
     "base": {"epsilon": 1, "relation": "replace"}, "target": {"epsilon": 1}},
]


@settings(max_examples=300)
@given(st.sampled_from(EXAMPLE_DICTS), st.lists(st.tuples(
    st.sampled_from(["population", "design", "base", "target", "protect"]),
    st.sampled_from(KEYS), TOMLISH), min_size=1, max_size=3))
def test_fuzz_mutated_designs_never_traceback(base: dict[str, Any], edits: list[Any]) -> None:
    obj = copy.deepcopy(base)
    for section, key, value in edits:
        if isinstance(obj.get(section), dict):
            obj[section][key] = value
    _only_design_file_errors(obj)


@st.composite
def well_formed(draw: st.DrawFn) -> dict[str, Any]:
    """Well-typed design files of every kind with small, possibly impossible, numbers."""
    kind = draw(st.sampled_from(sorted(PARAMS)))
    small = st.integers(0, 12)
    strata = {f"s{i}": draw(st.integers(1, 12)) for i in range(draw(st.integers(1, 3)))}
    pop: dict[str, Any] = {"size": sum(strata.values()), "strata": strata,
                           "clusters": draw(st.lists(st.integers(1, 6), min_size=1,
                                                     max_size=4)),
                           "size_classes": [{"measure": draw(st.integers(1, 5)), "count": c}
                                            for c in draw(st.lists(st.integers(1, 4),
                                                                   min_size=1, max_size=3))]}
    n = pop["size"]
    pop["clusters"] = [n - sum(pop["clusters"][1:])] + pop["clusters"][1:] \
        if n > sum(pop["clusters"][1:]) else [n]
    extra = n - sum(c["count"] for c in pop["size_classes"])
    if extra > 0:
        pop["size_classes"].append({"measure": 7, "count": extra})
    else:
        pop["size_classes"] = [{"measure": 1, "count": n}]
    if kind == "stratified-neyman":
        pop["strata"] = {h: {"values": {str(draw(st.integers(1, 9))): c}} for h, c
                         in strata.items()}
    values = {
        "q": draw(st.sampled_from(["0", "1/3", "1", "1/2"])),
        "r": draw(st.sampled_from(["1/3", "1/2", "9/10"])),
        "rounding": draw(st.sampled_from(["half-up", "floor", "half-even"]
                                         + (["randomised"] if kind != "stratified-neyman"
                                            else ["ceil"]))),
        "m": draw(small), "b": draw(small), "batch": draw(small), "ell": draw(st.integers(1, 4)),
        "interval": draw(st.integers(1, 5)), "within": draw(st.sampled_from(["srs", "poisson"])),
        "expected_size": draw(st.integers(0, 3)),
        "sizes": {h: draw(st.integers(0, 3)) for h in strata},
        "size_law": {str(min(n, 2)): "1/2", "0": "1/2"},
        "max_value": 12,
    }
    design = {"kind": kind, **{p: values[p] for p in PARAMS[kind][0]}}
    if kind == "two-stage-cluster":
        design["q" if design["within"] == "poisson" else "m"] = values["q"] \
            if design["within"] == "poisson" else values["m"]
    if kind == "stratified-neyman":
        design["max_value"] = 12
    return {"population": pop, "design": design,
            "base": {"epsilon": 1, "relation": draw(st.sampled_from(["add-remove", "replace"]))},
            "protect": {"relation": draw(st.sampled_from(["add-remove", "replace"]))},
            "target": {"epsilon": 1}}


@settings(max_examples=150)
@given(well_formed())
def test_fuzz_instances_only_raise_design_errors(obj: dict[str, Any]) -> None:
    """Through validation, the theorems and the scaled instance's sample laws, the only
    exception is a one-line design error (the CLI's exit 2)."""
    try:
        spec = one_release(parse_design(obj))  # shuffle: one batch (srswor)
        catalogue_bounds(spec)
        inst = build_instance(spec)
        for sc in inst.scenarios:
            sc.laws()
    except (DesignFileError, DesignError) as exc:
        assert "\n" not in str(exc)


@settings(max_examples=200)
@given(st.text(max_size=80))
def test_fuzz_toml_text(text: str) -> None:
    with contextlib.suppress(DesignFileError):
        loads(text)


# ---------------------------------------------------------------- the published schema


def test_schema_file_is_generated_from_the_validator() -> None:
    assert (ROOT / "docs" / "design-schema.json").read_text(encoding="utf-8") == dumps()


def test_examples_match_the_schema() -> None:
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema not installed")
    schema = json.loads(dumps())
    for p in sorted((ROOT / "examples").glob("*.toml")):
        jsonschema.validate(tomllib.loads(p.read_text(encoding="utf-8")), schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(_with("design.foo", 1, POISSON), schema)


# ---------------------------------------------------------------- deployment sections (issue 16)

DEPLOY: dict[str, Any] = {
    **copy.deepcopy(POISSON),
    "mechanism": {"kind": "gaussian", "query": "sum", "clip": 1, "noise_multiplier": 1.1},
    "composition": {"steps": 100, "delta": 1e-5},
    "accountant": {"name": "dp-accounting-pld"},
}

PPS_DEPLOY = _with("design", {"kind": "poisson-pps", "expected_size": 2}, _with(
    "population", {"size_classes": [{"measure": 1, "count": 5}, {"measure": 3, "count": 2}]},
    _with("accountant", _DELETE, DEPLOY)))

BAD_DEPLOY = [
    (_with("mechanism.kind", "exponential", DEPLOY), r"^mechanism\.kind: must be one of"),
    (_with("mechanism.clip", _DELETE, DEPLOY), r"^mechanism\.clip: missing \(the clipping "
                                               r"bound"),
    (_with("mechanism.clip", 0, DEPLOY), r"^mechanism\.clip: must be positive"),
    (_with("mechanism.scale", 2, DEPLOY), r"^mechanism\.scale: not a parameter of gaussian"),
    (_with("mechanism.kind", "discrete-gaussian", _with("mechanism.clip", 1.5, DEPLOY)),
     r"^mechanism\.clip: discrete-gaussian needs an integer clip"),
    (_with("mechanism", {"kind": "laplace", "query": "count", "clip": 1, "scale": 2}, DEPLOY),
     r"^mechanism\.clip: a count has no clipping bound"),
    (_with("mechanism", {"kind": "gaussian", "query": "mean", "clip": 1, "sigma": 2}, DEPLOY),
     r"^mechanism\.divisor: missing"),
    (_with("composition.steps", 0, DEPLOY), r"^composition\.steps: must be positive, got 0"),
    (_with("composition.steps", -3, DEPLOY), r"^composition\.steps: must be positive"),
    (_with("composition.steps", 10**7, DEPLOY), r"^composition\.steps: 10000000 exceeds"),
    (_with("composition.delta", 1, DEPLOY), r"^composition\.delta: must be in \(0, 1\)"),
    (_with("composition.delta", 0, DEPLOY), r"^composition\.delta: must be in \(0, 1\)"),
    (_with("composition.delta", -1e-5, DEPLOY), r"^composition\.delta: must be in \(0, 1\)"),
    (_with("composition.epsilon", 1, DEPLOY), r"^composition: give exactly one of delta"),
    (_with("accountant.name", "tf-privacy", DEPLOY), r"^accountant\.name: must be one of"),
    (_with("design", {"kind": "systematic-random", "interval": 10},
           _with("accountant", _DELETE, DEPLOY)),
     None),
    (_with("design", {"kind": "systematic-fixed", "interval": 10}, DEPLOY),
     r"^design\.kind: systematic-fixed: a known order set by the records"),
    (_with("protect", {"relation": "replace", "measures": "fixed"}, DEPLOY),
     r"^protect\.measures: applies to PPS designs only, not poisson"),
    (_with("protect", {"measures": "fixed"}, PPS_DEPLOY),
     r"^protect\.measures: \"fixed\" applies to substitution"),
    (_with("protect", {"relation": "replace", "measures": "frame"}, PPS_DEPLOY),
     r"^protect\.measures: must be one of"),
    (_with("population.size", 10**8, DEPLOY), r"^population\.size: 100000000 exceeds"),
]


def _value(v: Any) -> str:
    if isinstance(v, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {_value(x)}" for k, x in v.items()) + "}"
    if isinstance(v, bool):
        return "true" if v else "false"
    return json.dumps(v) if isinstance(v, str) else repr(v)


def _toml(obj: dict[str, Any]) -> str:
    """These test files only: top-level tables of scalars and inline tables."""
    out = []
    for sec, body in obj.items():
        out.append(f"[{sec}]")
        out += [f"{json.dumps(k)} = {_value(v)}" for k, v in body.items()]
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("obj,pattern", [b for b in BAD_DEPLOY if b[1]])
def test_bad_deployment_names_the_field(obj: dict[str, Any], pattern: str) -> None:
    with pytest.raises(DesignFileError, match=pattern) as exc:
        parse_design(obj)
    assert "\n" not in str(exc.value)


def test_deployment_parses() -> None:
    spec = parse_design(DEPLOY)
    assert spec.mechanism is not None and spec.mechanism.noise == F(11, 10)
    assert spec.composition is not None and spec.composition.steps == 100
    assert spec.accountant is not None and spec.accountant.q == F(1, 10)


@pytest.mark.parametrize("obj,pattern", [
    (BAD_DEPLOY[0][0], "mechanism.kind"), (BAD_DEPLOY[1][0], "mechanism.clip"),
    (BAD_DEPLOY[7][0], "composition.steps"), (BAD_DEPLOY[10][0], "composition.delta"),
    (BAD_DEPLOY[-1][0], "population.size"),
    # valid file, impossible deployment: found when the pair is derived, still exit 2
    (BAD_DEPLOY[15][0], "systematic-random under add-remove"),
])
def test_cli_deployment_exit_2_one_line(obj: dict[str, Any], pattern: str,
                                        tmp_path: Path) -> None:
    bad = tmp_path / "d.toml"
    bad.write_text(_toml(obj), encoding="utf-8")
    parser = argparse.ArgumentParser(prog="verifydp")
    register(parser.add_subparsers(dest="command", required=True))
    with pytest.raises(UsageError) as exc:
        run(parser.parse_args(["audit", str(bad), "--no-witnesses", "--no-grid"]))
    msg = str(exc.value)
    assert pattern in msg and "\n" not in msg


def test_a_deployment_file_needs_no_base_or_target() -> None:
    """Issue 27: a DP-SGD file with population, design, mechanism and composition only was
    refused with `base: missing section`. The single-release part then uses a stated
    reference (ε = 1, target ε' ≤ 1) and the spec says which sections it filled in; a file
    without a deployment still needs both."""
    obj = {"population": {"size": 60000}, "design": {"kind": "srswor", "m": 256},
           "protect": {"relation": "replace"},
           "mechanism": {"kind": "gaussian", "query": "sum", "clip": 1, "noise_multiplier": 1.1},
           "composition": {"steps": 10, "delta": 1e-5}}
    spec = parse_design(obj)
    assert spec.defaulted == ("base", "target")
    assert spec.base.epsilon == 1 and spec.base.relation.value == "replace"
    assert spec.target.epsilon == 1 and spec.to_json()["defaulted"] == ["base", "target"]
    with_target = parse_design({**obj, "target": {"epsilon": 3, "delta": 1e-5}})
    assert with_target.defaulted == ("base",) and with_target.target.epsilon == 3
    assert parse_design(POISSON).defaulted == ()
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((ROOT / "docs" / "design-schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(obj, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({k: v for k, v in POISSON.items() if k != "base"}, schema)
