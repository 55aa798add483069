"""`verifydp regress MODULE:FUNCTION --claim ID | --accountant DESIGN` (issues 8, 16, 17;
docs/regress.md).

Exit status: 0 when the function agrees with the claim's printed formula on every input tried
(skipped with --sound-only) and is never below the certified truth; 1 when it disagrees or is
unsound; 2 on usage errors (malformed target, module not importable, no such function, claim
without an adapter, a signature that does not fit even after --map, a bad --params). MODULE is
imported with the current directory first on `sys.path`.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from verifydp.regress import ADAPTERS, UsageError, regress, regress_accountant
from verifydp.witness.base import atomic_write
from verifydp.witness.regress import ACCOUNTANT_DESIGNS

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


def register(subparsers: Any) -> None:
    """Add the `regress` sub-command to an argparse sub-parsers object."""
    r = subparsers.add_parser(
        "regress", help="check an implementation of a printed formula or an accountant "
                        "(MODULE:FUNCTION)")
    r.add_argument("target", metavar="MODULE:FUNCTION")
    what = r.add_mutually_exclusive_group(required=True)
    what.add_argument("--claim", metavar="CLAIM_ID",
                      help="the claim whose formula FUNCTION implements")
    what.add_argument("--accountant", metavar="DESIGN", choices=ACCOUNTANT_DESIGNS,
                      help="FUNCTION(sigma, q | batch_size, n, steps, delta) -> epsilon, checked "
                           "against the certified composition of DESIGN: "
                           + ", ".join(ACCOUNTANT_DESIGNS))
    r.add_argument("--map", metavar="NAME=YOURS[,…]", action="append", default=None,
                   help="argument names: the claim's name = your function's (e.g. "
                        "eps=epsilon,n=population_size)")
    r.add_argument("--params", metavar="NAME=VALUE[,…]", action="append", default=None,
                   help="restrict or choose the parameters: NAME=3, NAME=0.5, NAME=1..50 "
                        "(a range), NAME=1|2|4 (choices), deltas=(0.1 0.2) (a tuple)")
    r.add_argument("--sound-only", action="store_true",
                   help="check soundness only: a looser but sound bound passes")
    r.add_argument("--vectorised", "--vectorized", action="store_true",
                   help="FUNCTION takes numpy arrays and returns arrays")
    r.add_argument("--witness", metavar="FILE",
                   help="write a replayable witness of an unsound finding (verifydp replay FILE)")
    r.add_argument("--no-refine", action="store_true",
                   help="accountants: do not bisect the steps of an unsound finding")
    r.add_argument("--max-examples", type=int, default=200, metavar="N",
                   help="inputs tried against the printed formula (default 200)")
    r.add_argument("--sound-examples", type=int, default=60, metavar="N",
                   help="small inputs tried against the exact worst case (default 60)")
    r.add_argument("--rtol", type=float, default=1e-6, help="relative float tolerance")
    r.add_argument("--atol", type=float, default=1e-12, help="absolute float tolerance")
    r.add_argument("--json", action="store_true", help="machine-readable report")


def load(target: str) -> Callable[..., Any]:
    """Import MODULE:FUNCTION with the current directory on the path."""
    module, sep, name = target.partition(":")
    if not sep or not module or not name:
        raise UsageError(f"expected MODULE:FUNCTION, got {target!r}")
    cwd = os.getcwd()
    if cwd not in sys.path:
        sys.path.insert(0, cwd)
    try:
        mod = importlib.import_module(module)
    except Exception as exc:  # noqa: BLE001 — any import failure is the user's input
        raise UsageError(f"cannot import {module!r}: {type(exc).__name__}: {exc}") from exc
    obj: Any = mod
    for part in name.split("."):
        if not hasattr(obj, part):
            raise UsageError(f"{module!r} has no attribute {name!r}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise UsageError(f"{target} is not callable")
    return obj  # type: ignore[no-any-return]


def _split(text: str) -> list[str]:
    """Split on commas outside brackets."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        depth += ch in "([" and 1 or 0
        depth -= ch in ")]" and 1 or 0
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    return [p.strip() for p in parts if p.strip()]


def _pairs(items: list[str], flag: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        for part in _split(item):
            key, sep, value = part.partition("=")
            key, value = key.strip(), value.strip()
            if not sep or not re.fullmatch(r"[A-Za-z_]\w*", key) or not value:
                raise UsageError(f"{flag} expects NAME=VALUE, got {part!r}")
            if key in out:
                raise UsageError(f"{flag} names {key} twice")
            out[key] = value
    return out


def _number(text: str) -> int | float:
    try:
        return int(text)
    except ValueError:
        pass
    try:
        v = float(text)
    except ValueError:
        raise UsageError(f"not a number: {text!r}") from None
    if v != v or v in (float("inf"), float("-inf")):
        raise UsageError(f"not a finite number: {text!r}")
    return v


def parse_value(text: str, grid: bool) -> Any:
    """One --params value: a number, a tuple "(a b)", choices "a|b" or a range "lo..hi".
    For accountants (`grid`) choices become a tuple of grid values; ranges are refused."""
    if text[0] in "([":
        if text[-1] not in ")]":
            raise UsageError(f"unclosed tuple: {text!r}")
        return tuple(_number(t) for t in re.split(r"[\s;,]+", text[1:-1].strip()) if t)
    if "|" in text:
        vals = tuple(_number(t) for t in text.split("|"))
        return vals if grid else st.sampled_from(vals)
    if ".." in text:
        if grid:
            raise UsageError(f"an accountant's grid takes values or choices a|b, not {text!r}")
        lo_t, _, hi_t = text.partition("..")
        lo, hi = _number(lo_t), _number(hi_t)
        if lo > hi:
            raise UsageError(f"empty range {text!r}")
        if isinstance(lo, int) and isinstance(hi, int):
            return st.integers(lo, hi)
        return st.floats(float(lo), float(hi))
    return _number(text)


def run(args: argparse.Namespace) -> int:
    try:
        if args.max_examples < 1 or args.sound_examples < 0 or args.rtol < 0 or args.atol < 0:
            raise UsageError("--max-examples must be ≥ 1, the other limits ≥ 0")
        if args.claim is not None and args.claim not in ADAPTERS:
            raise UsageError(f"no regress adapter for claim {args.claim!r}; supported: "
                             + ", ".join(sorted(ADAPTERS)))
        mapping = _pairs(args.map or [], "--map")  # None when not given (issue 27)
        grid = args.accountant is not None
        params = {k: parse_value(v, grid) for k, v in _pairs(args.params or [], "--params").items()}
        fn = load(args.target)
        if grid:
            report = regress_accountant(fn, args.accountant, params, mapping, args.rtol,
                                        args.atol, refine=not args.no_refine,
                                        vectorised=args.vectorised, name=args.target)
        else:
            report = regress(fn, args.claim, params, args.rtol, args.atol, args.max_examples,
                             args.sound_examples, mapping, args.vectorised, args.sound_only,
                             name=args.target)
    except UsageError as exc:
        print(f"verifydp: {exc}", file=sys.stderr)
        return EXIT_USAGE
    witness_path = None
    w = report.witness()
    if w is not None and args.witness:
        witness_path = Path(args.witness)
        try:
            atomic_write(witness_path, json.dumps(w.to_json(), indent=2) + "\n")
        except OSError as exc:
            print(f"verifydp: cannot write the witness {witness_path}: {exc}", file=sys.stderr)
            return EXIT_USAGE
    if args.json:
        out = report.to_json()
        out["witness"] = str(witness_path) if witness_path else None
        print(json.dumps(out, indent=2))
    else:
        print(report.summary())
        if witness_path:
            print(f"  witness: {witness_path} (verifydp replay {witness_path})")
        elif w is not None:
            print("  (--witness FILE keeps a replayable witness of the unsound input)")
    return EXIT_OK if report.ok else EXIT_FAIL
