"""`verifydp` command line (README, command line).

Exit status: 0 whatever the verdicts; 2 on usage errors (unknown claim, bad file);
1 on internal errors. Errors are one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import atexit
import codecs
import contextlib
import gc
import io
import json
import math
import os
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from fractions import Fraction
from pathlib import Path
from typing import NoReturn

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from verifydp import __version__, convert
from verifydp.casebook import offer_witness, replay, write_index
from verifydp.claims import Budget, catalogue, get_claim
from verifydp.claims.base import Verdict
from verifydp.claims.costs import expected_seconds
from verifydp.claims.scopes import SCOPES
from verifydp.cli import audit as audit_cli
from verifydp.cli import regress as regress_cli
from verifydp.cli.errors import EXIT_INTERNAL, EXIT_USAGE, UsageError
from verifydp.cli.progress import LogProgress, progress
from verifydp.exact.numtext import decimal_string, number_text, readable
from verifydp.hunt.executors import KINDS, SCHEDULER_ENV, ExecutorError, open_pool
from verifydp.hunt.portfolio import HuntError, HuntState, run_hunt
from verifydp.witness import WitnessFormatError

MAX_BUDGET_S = 7 * 24 * 3600.0
MAX_WORKERS = 1024


def _seconds(text: str) -> float:
    """A budget: a finite positive number of seconds, at most a week."""
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not math.isfinite(x) or x <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, not {text!r}")
    if x > MAX_BUDGET_S:
        raise argparse.ArgumentTypeError(f"exceeds the limit of {MAX_BUDGET_S:.0f} seconds")
    return x


def _path(text: str) -> Path:
    """A file or directory the user names: not empty (`Path('')` is the current directory,
    so `--witness-dir ''` once wrote the witness index over the project's README)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty path is not allowed")
    if "\x00" in text:
        raise argparse.ArgumentTypeError("a path cannot contain a NUL character")
    return Path(text)


def _workers(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    if n > MAX_WORKERS:
        raise argparse.ArgumentTypeError(f"exceeds the limit of {MAX_WORKERS} workers")
    return n


class _Parser(argparse.ArgumentParser):
    """argparse with the command line's error contract: one line, exit 2 (its default
    prints the usage block first)."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"verifydp: {message} (see `{self.prog} --help`)\n")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="verifydp",
        description="Exact verification of privacy-amplification claims about sampling designs.",
    )
    p.add_argument("--version", action="version", version=f"verifydp {__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    sub.add_parser("claims", help="list claim ids with one-line descriptions").add_argument(
        "--json", action="store_true", help="machine-readable output"
    )

    c = sub.add_parser("check", help="check claims against the exact worst case")
    c.add_argument("claims", nargs="*", metavar="CLAIM_ID")
    c.add_argument("--all", action="store_true", help="check every claim in the catalogue")
    c.add_argument("--json", action="store_true", help="one JSON object per claim, as a list")
    c.add_argument("--budget", type=_seconds, default=None, metavar="SECONDS",
                   help="wall-clock budget per claim (instances left unchecked are not counted)")
    c.add_argument("--witness-dir", type=_path, default=Path("counterexamples"), metavar="DIR",
                   help="where witnesses of refuted claims are written, unless a smaller one for "
                        "the same claim is already there (default: counterexamples)")
    c.add_argument("--no-witnesses", action="store_true", help="do not write witness files")
    c.add_argument("--no-progress", action="store_true", help="no progress bar")
    c.add_argument("--workers", type=_workers, default=None, metavar="N",
                   help="claims checked in parallel by N processes (default: all cores)")
    _executor_flags(c)

    h = sub.add_parser("hunt", help="search for violations (checker grids + hypothesis search)")
    h.add_argument("claims", nargs="*", metavar="CLAIM_ID")
    h.add_argument("--all", action="store_true", help="hunt every claim in the catalogue")
    h.add_argument("--budget", type=_seconds, default=600.0, metavar="SECONDS",
                   help="total wall-clock budget shared by the claims (default 600)")
    h.add_argument("--workers", type=_workers, default=None, metavar="N",
                   help="parallel tasks (default: all cores)")
    h.add_argument("--state", type=_path, default=Path(".verifydp/hunt-state.json"),
                   metavar="FILE", help="progress file, rewritten after every task")
    h.add_argument("--resume", action="store_true",
                   help="continue from --state: skip claims already refuted or checked")
    h.add_argument("--witness-dir", type=_path, default=Path("counterexamples"), metavar="DIR",
                   help="where witnesses go; a file is only replaced by a smaller witness")
    h.add_argument("--no-witnesses", action="store_true", help="do not write witness files")
    _executor_flags(h)
    h.add_argument("--json", action="store_true", help="machine-readable report")
    h.add_argument("--no-progress", action="store_true", help="no progress bar")

    r = sub.add_parser("replay", help="re-verify a witness file from scratch")
    r.add_argument("file", type=_path)
    r.add_argument("--json", action="store_true")

    audit_cli.register(sub)
    convert.register(sub)
    regress_cli.register(sub)
    return p


def _executor_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--executor", choices=KINDS, default="local",
                   help="where tasks run: local processes, or a Dask cluster (README, "
                        "'Running on a cluster'; needs verifydp[cluster])")
    p.add_argument("--scheduler", "--address", dest="scheduler", default=None,
                   metavar="ADDRESS",
                   help=f"Dask scheduler, e.g. tcp://host:8786 (default: ${SCHEDULER_ENV}, "
                        "else a LocalCluster of --workers processes)")


ASCII = {"ε": "eps", "δ": "delta", "σ": "sigma", "ρ": "rho", "μ": "mu", "η": "eta",
         "λ": "lambda", "γ": "gamma", "π": "pi", "Σ": "Sum", "≤": "<=", "≥": ">=", "≠": "!=",
         "≈": "~", "−": "-", "–": "-", "—": "--", "·": "*", "×": "x", "…": "...", "→": "->",
         "←": "<-", "∞": "inf", "±": "+/-", "∈": " in ", "′": "'", "̃": "~", "̂": "^",
         "√": "sqrt", "⌈": "ceil(", "⌉": ")", "⌊": "floor(", "⌋": ")", "‖": "||", "⟨": "<",
         "⟩": ">", "ℓ": "l", "│": "|", "─": "-", "━": "-", "┃": "|", "╭": "+", "╮": "+",
         "╰": "+", "╯": "+", "┏": "+", "┓": "+", "┗": "+", "┛": "+", "┡": "+", "┩": "+"}


def _ascii_spelling(exc: UnicodeError) -> tuple[str, int]:
    """A codec error handler: ε as eps, ≤ as <=, … ; '?' for the rest (issue 28:
    `PYTHONIOENCODING=ascii verifydp claims` was an internal error)."""
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    bad = exc.object[exc.start:exc.end]
    return "".join(ASCII.get(ch, "?") for ch in bad), exc.end


codecs.register_error("verifydp-ascii", _ascii_spelling)


def _plain_streams() -> None:
    """Where stdout or stderr cannot encode ε (an ASCII locale, PYTHONIOENCODING=ascii),
    write ASCII spellings instead of failing."""
    for stream in (sys.stdout, sys.stderr):
        try:
            "ε≤".encode(getattr(stream, "encoding", None) or "ascii")
        except (UnicodeEncodeError, LookupError):
            with contextlib.suppress(AttributeError, ValueError, io.UnsupportedOperation):
                stream.reconfigure(errors="verifydp-ascii")  # type: ignore[union-attr]


class Terminated(KeyboardInterrupt):
    """SIGTERM, handled like Ctrl-C (workers ended, witnesses and state kept), exit 143."""


@contextlib.contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_term(signum: int, frame: object) -> None:
        raise Terminated

    old = signal.signal(signal.SIGTERM, on_term)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: one line on stderr for any error, never a traceback (module
    docstring); SIGTERM is handled like Ctrl-C (issue 28)."""
    _plain_streams()
    try:
        os.getcwd()
    except OSError:
        print("verifydp: the current directory no longer exists (cd to one that does)",
              file=sys.stderr)
        return EXIT_USAGE
    stopped: tuple[str, int] | None = None
    try:
        with _terminate_as_interrupt():
            return _main(argv)
    except Terminated:  # between the handler's install and _main's own handling
        stopped = ("verifydp: terminated", 143)
    except KeyboardInterrupt:
        stopped = ("verifydp: interrupted", 130)
    # outside the handler, so the interrupt's traceback is gone: the finalisers of objects it
    # cut short run now (z3's Context.__del__ printed "'Context' object has no attribute
    # 'owner'" after our line when Ctrl-C landed in its __init__); any still pending at exit
    # are the same half-built objects, and their complaints are not ours to print: ours is
    # the last line
    atexit.register(setattr, sys, "unraisablehook", lambda _unraisable: None)
    gc.collect()
    assert stopped is not None
    print(stopped[0], file=sys.stderr)
    return stopped[1]


def _main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a usage error already printed
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    try:
        # Python 3.11's argparse drops a value of "--" (`--budget=--`) and hands the option an
        # empty list instead of calling its type (inside the list for an appending option):
        # refuse it like any bad value. No option defaults to a list, so an empty one is never
        # a default (issue 27: `regress` was refused for --map's old default [])
        for name, value in vars(args).items():
            if isinstance(value, list) and name not in ("claims",) and (
                    not value or any(v == [] for v in value)):
                raise UsageError(f"--{name.replace('_', '-')}: missing value")
        if args.command == "claims":
            return cmd_claims(args)
        if args.command == "check":
            return cmd_check(args)
        if args.command == "replay":
            return cmd_replay(args)
        if args.command == "hunt":
            return cmd_hunt(args)
        if args.command == "audit":
            return audit_cli.run(args)
        if args.command == "convert":
            return convert.run(args)
        if args.command == "regress":
            return regress_cli.run(args)
    except UsageError as exc:
        print(f"verifydp: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:  # a path the user gave that cannot be read or written
        where = f": {exc.filename}" if exc.filename else ""
        print(f"verifydp: {exc.strerror or exc}{where}", file=sys.stderr)
        return EXIT_USAGE
    except Exception as exc:  # noqa: BLE001 - the contract is one line, never a traceback
        print(f"verifydp: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_INTERNAL
    parser.error(f"unknown command {args.command}")
    return EXIT_USAGE


def cmd_claims(args: argparse.Namespace) -> int:
    cat = catalogue()
    if args.json:
        print(json.dumps(
            [{"claim": c.id, "paper": c.paper, "where": c.where, "summary": c.summary}
             for c in cat.values()], indent=2,
        ))
        return 0
    width = max(len(k) for k in cat)
    for c in cat.values():
        print(f"{c.id:<{width}}  {c.summary}")
    return 0


def _selected(args: argparse.Namespace) -> list[str]:
    cat = catalogue()
    if args.all and args.claims:
        raise UsageError("give claim ids or --all, not both")
    if not args.all and not args.claims:
        raise UsageError("name at least one CLAIM_ID, or use --all (see `verifydp claims`)")
    if args.budget is not None and args.budget <= 0:
        raise UsageError("--budget must be a positive number of seconds")
    ids = list(cat) if args.all else list(args.claims)
    unknown = [i for i in ids if i not in cat]
    if unknown:
        raise UsageError(f"unknown claim {unknown[0]!r} (run `verifydp claims` to list them)")
    return ids


def _check_one(claim_id: str, budget: float | None, witness_dir: str | None) -> dict:
    """Run one claim in a worker; return its JSON object (witness written by the worker)."""
    res = get_claim(claim_id).check(Budget(budget))
    path = None
    if res.verdict is Verdict.REFUTED and res.witness and witness_dir is not None:
        # the corpus keeps one minimal witness per claim: a larger one never replaces it
        path = str(offer_witness(res.witness, Path(witness_dir))[0])
    return res.to_json(path) | {"scope": SCOPES[claim_id].to_json()}  # issue 14: declared domain


@contextlib.contextmanager
def _remembered_interrupt() -> Iterator[list[bool]]:
    """Ctrl-C raises KeyboardInterrupt as usual and is also remembered: one raised while a
    finaliser or gc callback runs is printed and dropped by Python (seen: a check run on to
    exit 0 after SIGINT), so the caller raises it again at its next safe point."""
    flag = [False]
    if threading.current_thread() is not threading.main_thread():
        yield flag
        return

    def on_int(signum: int, frame: object) -> None:
        flag[0] = True
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGINT, on_int)
    try:
        yield flag
    finally:
        signal.signal(signal.SIGINT, old)


def cmd_check(args: argparse.Namespace) -> int:
    ids = _selected(args)
    if args.workers is not None and args.workers < 1:
        raise UsageError("--workers must be at least 1")
    workers = args.workers or os.cpu_count() or 1
    witness_dir = None if args.no_witnesses else str(args.witness_dir)
    results: dict[str, dict] = {}
    workers = min(workers, len(ids))  # one claim runs inline
    try:
        with _remembered_interrupt() as stopped, _progress(args.no_progress) as progress, \
                open_pool(args.executor, workers, args.scheduler) as pool:
            task = progress.add_task("checking", total=len(ids))
            # longest first (verifydp/claims/costs.py): the workers then finish together
            order = sorted(ids, key=expected_seconds, reverse=True)
            calls = [(cid, args.budget, witness_dir) for cid in order]
            for i, obj in pool.map_unordered(_check_one, calls):
                results[order[i]] = obj
                progress.update(task, description=f"done {order[i]}")
                progress.advance(task)
                if stopped[0]:  # a Ctrl-C that Python dropped
                    raise KeyboardInterrupt
    except ExecutorError as exc:
        raise UsageError(str(exc)) from exc
    ordered = [results[cid] for cid in ids]
    if witness_dir is not None and any(o["witness"] for o in ordered):
        write_index(Path(witness_dir))
    if args.json:
        print(json.dumps(ordered, indent=2))
    else:
        _table(ordered)
    return 0


def _progress(disabled: bool) -> Progress | LogProgress:
    """A bar on a terminal, a line every 10 s in a log (issue 27), nothing with --no-progress."""
    return progress(disabled, TextColumn("{task.description}"), BarColumn(),
                    TextColumn("{task.completed}/{task.total}"), TimeElapsedColumn())


def _table(results: list[dict]) -> None:
    colours = {"refuted": "red", "holds-on-instance": "green", "proved": "cyan",
               "inconclusive": "yellow"}
    table = Table(title="verifydp verdicts", show_lines=False)
    table.add_column("claim", no_wrap=True)
    table.add_column("verdict", no_wrap=True)
    table.add_column("instances", justify="right")
    table.add_column("time", justify="right")
    table.add_column("detail / witness")
    for obj in results:
        v = obj["verdict"]
        detail = readable(obj["detail"]["summary"])  # decimals, never 8/1875 (issue 27)
        if isinstance(obj["witness"], str):
            detail += f"  [witness: {obj['witness']}]"
        elif obj["witness"]:  # not written (--no-witnesses): the object is in --json
            detail += "  [witness not written; in --json]"
        if v == Verdict.HOLDS.value:  # issue 14: what a holds-on-instance does not speak for
            detail += "\n  not covered: " + readable(
                "; ".join(SCOPES[obj["claim"]].not_covered() or ("—",)))
        table.add_row(obj["claim"], f"[{colours[v]}]{v}[/]", str(len(obj["instances"])),
                      f"{obj['detail']['seconds']:.1f}s", detail)
    console = Console(width=160)
    console.print(table)
    console.print(verdict_counts(results), markup=False, highlight=False)


def verdict_counts(results: list[dict]) -> str:
    """The line under the check table (issue 27): "91 claims: 40 refuted, 35
    holds-on-instance, 5 proved, 11 inconclusive", the verdicts in the README's order."""
    counts = {v.value: 0 for v in (Verdict.REFUTED, Verdict.HOLDS, Verdict.PROVED,
                                   Verdict.INCONCLUSIVE)}
    for obj in results:
        counts[obj["verdict"]] = counts.get(obj["verdict"], 0) + 1
    n = len(results)
    return f"{n} claim{'s' if n != 1 else ''}: " + ", ".join(
        f"{c} {v}" for v, c in counts.items() if c)


def cmd_hunt(args: argparse.Namespace) -> int:
    ids = _selected(args)
    if args.workers is not None and args.workers < 1:
        raise UsageError("--workers must be at least 1")
    if args.resume and not args.state.exists():
        raise UsageError(f"--resume: no hunt state at {args.state}")
    workers = args.workers or os.cpu_count() or 1
    witness_dir = None if args.no_witnesses else args.witness_dir
    interrupted = False
    with _remembered_interrupt() as stopped, _progress(args.no_progress) as progress:
        task = progress.add_task("hunting", total=len(ids))

        def tick(result: dict) -> None:
            if result["round"] == 1 or result.get("checked"):
                progress.advance(task)
            progress.update(task, description=f"hunting (last: {result['claim']})")
            if stopped[0]:  # a Ctrl-C that Python dropped between the searches
                raise KeyboardInterrupt

        try:
            state = run_hunt(ids, args.budget, workers, args.state, witness_dir,
                             resume=args.resume, executor=args.executor,
                             address=args.scheduler, progress=tick)
        except HuntError as exc:
            raise UsageError(str(exc)) from exc
        except KeyboardInterrupt:
            interrupted = True
            state = HuntState.load(args.state)
    if witness_dir is not None and witness_dir.exists():
        write_index(witness_dir)
    rows = [{"claim": c, **state.claims.get(c, {})} for c in ids]
    report = {"budget_s": args.budget, "workers": workers, "interrupted": interrupted,
              "state": str(args.state), "claims": rows}
    if args.json:
        report["claims"] = [_hunt_json(r) for r in rows]
        print(json.dumps(report, indent=2))
    else:
        _hunt_table(rows)
        if interrupted:
            print(f"interrupted: progress saved to {args.state}; continue with --resume",
                  file=sys.stderr)
    return 130 if interrupted else 0


def _hunt_json(row: dict) -> dict:
    """A hunt row in the one JSON number format (issue 27): the best margin as a decimal
    string of 6 significant digits rounded toward zero (its sign, > 0 violated, is kept;
    "inf" for an unbounded violation, which a JSON number cannot hold), times in seconds to
    the millisecond like `seconds` (not a float's 17 digits)."""
    out = dict(row)
    bm = out.get("best_margin")
    if isinstance(bm, (int, float)):
        out["best_margin"] = ("inf" if bm > 0 else "-inf") if math.isinf(bm) else \
            decimal_string(Fraction(bm), bm < 0, 6)
    if isinstance(out.get("first_witness_s"), float):
        out["first_witness_s"] = round(out["first_witness_s"], 3)
    return out


def _hunt_table(rows: list[dict]) -> None:
    table = Table(title="verifydp hunt")
    for col, just in (("claim", "left"), ("result", "left"), ("tries", "right"),
                      ("best margin", "right"), ("1st witness", "right"),
                      ("minimised", "left"), ("witness", "left")):
        table.add_column(col, justify=just, no_wrap=col == "claim")  # type: ignore[arg-type]
    for r in rows:
        found = r.get("refuted")
        result = "[red]violation[/]" if found else (
            "none found" if r.get("searched") else f"grid only: {r.get('check_verdict', '?')}")
        if r.get("error"):
            result += f" [yellow](search error: {r['error'][:60]})[/]"
        bm = r.get("best_margin")
        mini = r.get("minimised")
        table.add_row(
            r["claim"], result, str(r.get("tries", 0)),
            "—" if bm is None else number_text(bm, 3),
            "—" if r.get("first_witness_s") is None else f"{r['first_witness_s']:.1f}s",
            f"size {mini['first_size']} → {mini['final_size']}" if mini else "—",
            r.get("witness") or ("(printed numbers, no dataset)" if found else ""))
    Console(width=170).print(table)


def cmd_replay(args: argparse.Namespace) -> int:
    if not args.file.exists():
        raise UsageError(f"no such witness file: {args.file}")
    try:
        report = replay(args.file)
    except WitnessFormatError as exc:
        raise UsageError(str(exc)) from exc
    if args.json:
        print(json.dumps({"file": str(args.file), "confirmed": report.confirmed,
                          "lines": list(report.lines)}, indent=2))
    else:
        print("\n".join(readable(line) for line in report.lines))  # decimals (issue 27)
    return 0 if report.confirmed else 1


if __name__ == "__main__":
    sys.exit(main())
