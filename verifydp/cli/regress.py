"""`verifydp regress MODULE:FUNCTION --claim ID` (issue 8).

Exit status: 0 when the function agrees with the claim's printed formula on every input tried
and is never below the exact worst case; 1 when it disagrees or is unsound; 2 on usage errors
(malformed target, module not importable, no such function, claim without an adapter).
MODULE is imported with the current directory first on `sys.path`.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


def register(subparsers: Any) -> None:
    """Add the `regress` sub-command to an argparse sub-parsers object."""
    r = subparsers.add_parser(
        "regress", help="check an implementation of a printed formula (MODULE:FUNCTION)")
    r.add_argument("target", metavar="MODULE:FUNCTION")
    r.add_argument("--claim", required=True, metavar="CLAIM_ID",
                   help="the claim whose formula FUNCTION implements")
    r.add_argument("--max-examples", type=int, default=200, metavar="N",
                   help="inputs tried against the printed formula (default 200)")
    r.add_argument("--sound-examples", type=int, default=60, metavar="N",
                   help="small inputs tried against the exact worst case (default 60)")
    r.add_argument("--rtol", type=float, default=1e-6, help="relative float tolerance")
    r.add_argument("--atol", type=float, default=1e-12, help="absolute float tolerance")
    r.add_argument("--json", action="store_true", help="machine-readable report")


class _Usage(Exception):
    pass


def load(target: str) -> Callable[..., Any]:
    """Import MODULE:FUNCTION with the current directory on the path."""
    module, sep, name = target.partition(":")
    if not sep or not module or not name:
        raise _Usage(f"expected MODULE:FUNCTION, got {target!r}")
    cwd = os.getcwd()
    if cwd not in sys.path:
        sys.path.insert(0, cwd)
    try:
        mod = importlib.import_module(module)
    except Exception as exc:  # noqa: BLE001 — any import failure is the user's input
        raise _Usage(f"cannot import {module!r}: {type(exc).__name__}: {exc}") from exc
    obj: Any = mod
    for part in name.split("."):
        if not hasattr(obj, part):
            raise _Usage(f"{module!r} has no attribute {name!r}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise _Usage(f"{target} is not callable")
    return obj  # type: ignore[no-any-return]


def run(args: argparse.Namespace) -> int:
    from verifydp.regress import ADAPTERS, regress

    try:
        if args.claim not in ADAPTERS:
            raise _Usage(f"no regress adapter for claim {args.claim!r}; supported: "
                         + ", ".join(sorted(ADAPTERS)))
        if args.max_examples < 1 or args.sound_examples < 0 or args.rtol < 0 or args.atol < 0:
            raise _Usage("--max-examples must be ≥ 1, the other limits ≥ 0")
        fn = load(args.target)
    except _Usage as exc:
        print(f"verifydp: {exc}", file=sys.stderr)
        return EXIT_USAGE
    report = regress(fn, args.claim, rtol=args.rtol, atol=args.atol,
                     max_examples=args.max_examples, sound_examples=args.sound_examples)
    if args.json:
        out = asdict(report)
        out.update(agrees=report.agrees, sound=report.sound, ok=report.ok)
        print(json.dumps(out, indent=2, default=str))
    else:
        print(report.summary())
    return EXIT_OK if report.ok else EXIT_FAIL
