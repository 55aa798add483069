"""`verifydp audit DESIGN [--html OUT] [--json]`: the single-release audit of a design file and,
when the file names a mechanism or a composition, the deployment audit (T releases). A
malformed or impossible design file raises `UsageError` (one line naming the field, exit 2).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from verifydp.audit.core import audit, planned_steps
from verifydp.audit.html import render_html
from verifydp.audit.spec import DesignFileError, load_design
from verifydp.cli.errors import UsageError
from verifydp.cli.progress import progress


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    a = subparsers.add_parser("audit", help="audit a proposed sampling design (TOML file)")
    a.add_argument("design", type=Path, metavar="DESIGN", help="design file (TOML)")
    a.add_argument("--html", type=Path, default=None, metavar="OUT",
                   help="also write a self-contained HTML report with plots")
    a.add_argument("--json", action="store_true", help="machine-readable report")
    a.add_argument("--witness-dir", type=Path, default=Path("audit-witnesses"), metavar="DIR",
                   help="where a witness of the target's violation is written "
                        "(default: audit-witnesses)")
    a.add_argument("--no-witnesses", action="store_true", help="do not write witness files")
    a.add_argument("--no-grid", action="store_true",
                   help="solve the exact worst case at the base ε only (faster; plots get "
                        "one point)")
    a.add_argument("--no-progress", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    if not args.design.exists():
        raise UsageError(f"no such design file: {args.design}")
    try:
        spec = load_design(args.design)
    except DesignFileError as exc:
        raise UsageError(f"{args.design}: {exc}") from None
    with progress(args.no_progress) as bar:
        deploy = spec.mechanism is not None or spec.composition is not None
        task = bar.add_task("auditing", total=planned_steps(spec, not args.no_grid) + 1
                                 + (6 if deploy else 0))

        def step(text: str) -> None:
            bar.update(task, description=f"auditing {spec.name}: {text}", advance=1)

        try:
            report = audit(spec, step, None if args.no_witnesses else args.witness_dir,
                           grid=not args.no_grid)
        except DesignFileError as exc:
            raise UsageError(f"{args.design}: {exc}") from None
        if args.html is not None:
            step("writing HTML")
            args.html.parent.mkdir(parents=True, exist_ok=True)
            args.html.write_text(render_html(report), encoding="utf-8")
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        report.render()
        if args.html is not None:
            print(f"HTML report: {args.html}")
    return 0
