"""The JSON Schema of design files, generated from the validator's own tables (spec.py).

`python -m verifydp.audit.schema docs/design-schema.json` rewrites the published schema; a test
checks the file is up to date. The schema describes the shape; `verifydp.audit.spec` also
checks what a schema cannot (allocations against stratum sizes, m ≤ N, sums to 1, …).
"""

from __future__ import annotations

import json
import sys
from typing import Any

from verifydp.audit.spec import (
    ACCOUNTANTS,
    ASSUMED_SAMPLERS,
    CLUSTER_FRAMES,
    KINDS,
    MAX_CLUSTERS,
    MAX_EPSILON,
    MAX_MUST_DRAWS,
    MAX_NEYMAN_VALUE,
    MAX_POPULATION,
    MAX_SIZE_CLASSES,
    MAX_STEPS,
    MAX_STRATA,
    MECHANISMS,
    NEYMAN_ROUNDINGS,
    PARAMS,
    QUERIES,
    ROUNDINGS,
    SIZE_MEASURES,
    SYSTEMATIC_ORDERS,
)

NUMBER = {"oneOf": [{"type": "number"}, {"type": "string", "pattern": r"^\s*-?[0-9./eE+-]+\s*$"}],
          "description": "a number: 3, 0.25 (read as the decimal 1/4) or a fraction '1/4'"}
RELATION = {"enum": ["add-remove", "replace", "deletion", "substitution", "replacement"]}


def _int(lo: int, hi: int) -> dict[str, Any]:
    return {"type": "integer", "minimum": lo, "maximum": hi}


def _param_schema(kind: str, name: str) -> dict[str, Any]:
    if name in ("q", "r"):
        return {**NUMBER, "description": "probability" if name == "q" else "rate in (0, 1)"}
    if name == "rounding":
        return {"enum": list(NEYMAN_ROUNDINGS if kind == "stratified-neyman" else ROUNDINGS)}
    if name == "variance":
        return {"enum": ["population", "sample"]}
    if name == "within":
        return {"enum": ["poisson", "srs"]}
    if name == "expected_size":
        return NUMBER
    if name == "size_law":
        return {"type": "object", "additionalProperties": NUMBER,
                "description": "sample size → probability (sums to 1)"}
    if name == "sizes":
        return {"type": "object", "additionalProperties": _int(0, MAX_POPULATION),
                "description": "stratum name → sample size"}
    if name in ("b", "m") and kind.startswith("must-"):
        return _int(0, MAX_MUST_DRAWS)
    if name == "max_value":
        return _int(1, MAX_NEYMAN_VALUE)
    return _int(1 if name in ("interval", "batch") else 0, MAX_POPULATION)


def _design_schema() -> dict[str, Any]:
    variants = []
    for kind in KINDS:
        required, optional = PARAMS[kind]
        props: dict[str, Any] = {"kind": {"const": kind}}
        props.update({p: _param_schema(kind, p) for p in (*required, *optional)})
        variants.append({"type": "object", "properties": props,
                         "required": ["kind", *required], "additionalProperties": False})
    return {"oneOf": variants}


def _guarantee(default: str) -> dict[str, Any]:
    return {"type": "object", "required": ["epsilon"], "additionalProperties": False,
            "properties": {
                "epsilon": {**NUMBER, "description": f"ε > 0, at most {MAX_EPSILON}"},
                "delta": {**NUMBER, "description": "δ in [0, 1), default 0"},
                "relation": {**RELATION, "description": f"default {default}"}}}


def _deployment() -> dict[str, Any]:
    """[mechanism], [composition], [accountant] (issue 16; docs/design-files.md#deployment)."""
    mechanism = {"type": "object", "required": ["kind"], "additionalProperties": False,
                 "properties": {
                     "kind": {"enum": list(MECHANISMS)},
                     "query": {"enum": list(QUERIES), "description": "default sum"},
                     "clip": {**NUMBER, "description": "bound on each record's contribution "
                                                       "(norm); required for sum and mean; an "
                                                       "integer for discrete-gaussian"},
                     "sigma": {**NUMBER, "description": "Gaussian standard deviation (the "
                                                        "discrete Gaussian's σ on the integers)"},
                     "noise_multiplier": {**NUMBER, "description": "σ / clip (DP-SGD)"},
                     "scale": {**NUMBER, "description": "Laplace scale b"},
                     "divisor": {**NUMBER, "description": "a mean's public denominator"},
                     "epsilon0": {**NUMBER, "description": "randomized-response only: keep "
                                                           "the bit w.p. e^ε0/(1 + e^ε0)"}}}
    composition = {"type": "object", "required": ["steps"], "additionalProperties": False,
                   "properties": {
                       "steps": _int(1, MAX_STEPS),
                       "delta": {**NUMBER, "description": "report ε at this δ ∈ (0, 1)"},
                       "epsilon": {**NUMBER, "description": "report δ at this ε"},
                       "resample": {"type": "boolean",
                                    "description": "a new sample per release (default true)"},
                       "rtol": {**NUMBER, "description": "relative bracket width wanted"}}}
    accountant = {"type": "object", "required": ["name"], "additionalProperties": False,
                  "properties": {
                      "name": {"enum": list(ACCOUNTANTS)},
                      "assumes": {"enum": list(ASSUMED_SAMPLERS)},
                      "q": {**NUMBER, "description": "the rate it is given (default batch/N)"},
                      "noise_multiplier": NUMBER,
                      "steps": _int(1, MAX_STEPS)}}
    return {"mechanism": mechanism, "composition": composition, "accountant": accountant}


def schema() -> dict[str, Any]:
    stratum = {"oneOf": [
        _int(1, MAX_POPULATION),
        {"type": "object", "additionalProperties": False, "properties": {
            "size": _int(1, MAX_POPULATION),
            "values": {"type": "object", "additionalProperties": _int(1, MAX_POPULATION),
                       "description": "record value (integer, e.g. employees) → count"},
            "range": {"type": "array", "items": _int(0, MAX_NEYMAN_VALUE), "minItems": 2,
                      "maxItems": 2, "description": "[lowest, highest] value in the stratum"},
        }},
    ]}
    cluster = {"oneOf": [_int(1, MAX_POPULATION), {
        "type": "object", "required": ["size"], "additionalProperties": False,
        "properties": {"size": _int(1, MAX_POPULATION), "count": _int(1, MAX_CLUSTERS)}}]}
    size_class = {"type": "object", "required": ["measure", "count"],
                  "additionalProperties": False,
                  "properties": {"measure": NUMBER, "count": _int(1, MAX_POPULATION)}}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://verifydp.invalid/design-schema.json",
        "title": "verifydp design file",
        "description": "A proposed sampling design to audit (docs/design-files.md). Generated "
                       "by `python -m verifydp.audit.schema`.",
        "type": "object",
        "required": ["population", "design"],
        # [base] and [target] are required unless the file is a deployment (issue 27)
        "anyOf": [{"required": ["base", "target"]}, {"required": ["mechanism"]},
                  {"required": ["composition"]}],
        "additionalProperties": False,
        "properties": {
            "name": {"type": "string"},
            "description": {"type": "string"},
            "population": {"type": "object", "additionalProperties": False, "properties": {
                "size": _int(1, MAX_POPULATION),
                "strata": {"type": "object", "additionalProperties": stratum,
                           "maxProperties": MAX_STRATA},
                "clusters": {"type": "array", "items": cluster, "minItems": 1},
                "size_classes": {"type": "array", "items": size_class, "minItems": 1,
                                 "maxItems": MAX_SIZE_CLASSES},
            }},
            "design": _design_schema(),
            "base": _guarantee("add-remove"),
            "protect": {"type": "object", "additionalProperties": False,
                        "properties": {"relation": RELATION, "clusters": {
                            "enum": list(CLUSTER_FRAMES),
                            "description": "cluster designs, deployment audit: 'fixed' states "
                                           "that the cluster frame is public and fixed; "
                                           "default 'open'"},
                            "measures": {
                            "enum": list(SIZE_MEASURES),
                            "description": "PPS designs under substitution: 'fixed' states "
                                           "that size measures are frame data, kept by a "
                                           "changed record; default 'own'"},
                            "order": {
                            "enum": list(SYSTEMATIC_ORDERS),
                            "description": "systematic-fixed under substitution: 'fixed' "
                                           "states that the list order is frame data, kept "
                                           "by a changed record (read as cluster sampling of "
                                           "the residue classes); default 'values'"}}},
            "target": _guarantee("the protected relation"),
            "audit": {"type": "object", "additionalProperties": False, "properties": {
                "instance_size": _int(4, 200),
                "eps_grid": {"type": "array", "items": NUMBER, "maxItems": 12}}},
            **_deployment(),
        },
    }


def dumps() -> str:
    return json.dumps(schema(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":  # python -m verifydp.audit.schema [OUT]
    text = dumps()
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)
