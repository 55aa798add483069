"""`verifydp regress MODULE:FUNCTION --claim ID | --accountant DESIGN` (issues 8, 16, 17;
docs/regress.md).

Exit status: 0 when the function agrees with the claim's printed formula on every input tried
(skipped with --sound-only) and is never below the certified truth; 1 when it disagrees or is
unsound; 2 on usage errors (malformed target, module not importable, no such function, claim
without an adapter, a signature that does not fit even after --map, a bad --params), and when
the function (or its module, while imported) exits, raises, hangs past --call-timeout or
--timeout, or returns something other than finite numbers: one line naming what it did and at
which input (issue 28). MODULE is imported and FUNCTION called in a child process
(`verifydp.regress.sandbox`), with the current directory first on `sys.path` and its output
captured, so the exit status is always the verifier's own.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from verifydp.cli.progress import LogProgress
from verifydp.numparse import Domain, NumberError, number
from verifydp.regress import ADAPTERS, UsageError, regress, regress_accountant
from verifydp.regress.sandbox import Limits, sandboxed
from verifydp.witness.base import atomic_write
from verifydp.witness.regress import ACCOUNTANT_DESIGNS, MAX_STEPS

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
    r.add_argument("--rtol", type=_flag_number("--rtol", TOLERANCE["rtol"]), default=1e-6,
                   help="relative float tolerance, in [0, 1]")
    r.add_argument("--atol", type=_flag_number("--atol", TOLERANCE["atol"]), default=1e-12,
                   help="absolute float tolerance, in [0, 1000]")
    r.add_argument("--call-timeout", type=_flag_number("--call-timeout", TIMEOUT),
                   default=Limits.call_s, metavar="SECONDS",
                   help=f"the longest one call of FUNCTION may take (default "
                        f"{Limits.call_s:g}; importing MODULE may take at least "
                        f"{Limits.import_s:g})")
    r.add_argument("--timeout", type=_flag_number("--timeout", TIMEOUT), default=Limits.total_s,
                   metavar="SECONDS", help=f"the longest all calls together may take (default "
                                           f"{Limits.total_s:g})")
    r.add_argument("--json", action="store_true", help="machine-readable report")


TOLERANCE = {"rtol": Domain(0, 1), "atol": Domain(0, 1000)}
TIMEOUT = Domain(0, 7 * 24 * 3600, open_lo=True)
# the domain of every --params name (a value outside it is one line, before any call): a
# claim's own draws stay inside these, and an accountant's steps are bounded so that the
# certified composition finishes (steps = 10¹² once ran until killed)
PARAM_DOMAINS = {
    "eps": Domain(0, 30, open_lo=True), "n": Domain(1, 10**9, integer=True),
    "m": Domain(0, 10**9, integer=True), "b": Domain(0, 10**9), "r": Domain(0, 1, True, True),
    "gamma": Domain(0, 1), "deltas": Domain(0, 1), "sigma": Domain(0, 10**6, open_lo=True),
    "batch_size": Domain(1, 10**9, integer=True), "steps": Domain(1, MAX_STEPS, integer=True),
    "delta": Domain(0, 1, True, True), "q": Domain(0, 1, open_lo=True),
}


def _flag_number(flag: str, domain: Domain) -> Callable[[str], float]:
    """An argparse type: a finite number in `domain` (`verifydp.numparse`), as a float."""
    def parse(text: str) -> float:
        try:
            return float(number(text, flag, domain))
        except NumberError as exc:
            raise argparse.ArgumentTypeError(str(exc).removeprefix(flag + " ").removeprefix(
                flag + ": ")) from None
    return parse


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


def _number(text: str, key: str = "value") -> int | float:
    """One number of --params, in its name's domain (`PARAM_DOMAINS`): an int when it is
    written as one, else a float (the functions under test take floats)."""
    try:
        x = number(text, f"--params {key}", PARAM_DOMAINS.get(key, Domain()))
    except NumberError as exc:
        raise UsageError(str(exc)) from None
    if re.fullmatch(r"\s*[+-]?\d+\s*", text):
        return int(x)
    return float(x)


def parse_value(text: str, grid: bool, key: str = "value") -> Any:
    """One --params value: a number, a tuple "(a b)", choices "a|b" or a range "lo..hi".
    For accountants (`grid`) choices become a tuple of grid values; ranges are refused.
    Every number must lie in the domain of `key` (`PARAM_DOMAINS`)."""
    if text[0] in "([":
        if text[-1] not in ")]":
            raise UsageError(f"unclosed tuple: {text!r}")
        return tuple(_number(t, key) for t in re.split(r"[\s;,]+", text[1:-1].strip()) if t)
    if "|" in text:
        vals = tuple(_number(t, key) for t in text.split("|"))
        return vals if grid else st.sampled_from(vals)
    if ".." in text:
        if grid:
            raise UsageError(f"an accountant's grid takes values or choices a|b, not {text!r}")
        lo_t, _, hi_t = text.partition("..")
        lo, hi = _number(lo_t, key), _number(hi_t, key)
        if lo > hi:
            raise UsageError(f"empty range {text!r}")
        if isinstance(lo, int) and isinstance(hi, int):
            return st.integers(lo, hi)
        return st.floats(float(lo), float(hi))
    return _number(text, key)


def run(args: argparse.Namespace) -> int:
    try:
        if not 1 <= args.max_examples <= 100_000 or not 0 <= args.sound_examples <= 100_000:
            raise UsageError("--max-examples must be in [1, 100000], --sound-examples in "
                             "[0, 100000]")
        if args.claim is not None and args.claim not in ADAPTERS:
            raise UsageError(f"no regress adapter for claim {args.claim!r}; supported: "
                             + ", ".join(sorted(ADAPTERS)))
        mapping = _pairs(args.map or [], "--map")  # None when not given (issue 27)
        grid = args.accountant is not None
        params = {k: parse_value(v, grid, k)
                  for k, v in _pairs(args.params or [], "--params").items()}
        # the function runs in a child process with time limits (issue 28): whatever it does,
        # exit statuses 0 and 1 are the verifier's judgement
        what = f"regress {args.target} against {args.claim or args.accountant}"
        # a line every 10 s in a log (issue 27): an accountant's grid composes for a minute
        with sandboxed(args.target, Limits(args.call_timeout, args.timeout)) as fn, \
                LogProgress() if not sys.stderr.isatty() else contextlib.nullcontext() as bar:
            if bar is not None:
                bar.add_task(what)
            if grid:
                report = regress_accountant(fn, args.accountant, params, mapping, args.rtol,
                                            args.atol, refine=not args.no_refine,
                                            vectorised=args.vectorised, name=args.target)
            else:
                report = regress(fn, args.claim, params, args.rtol, args.atol,
                                 args.max_examples, args.sound_examples, mapping,
                                 args.vectorised, args.sound_only, name=args.target)
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
