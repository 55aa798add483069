"""Every command line shown in README.md and docs/*.md runs as the user types it (issue 27).

The commands are read from the documents themselves — `$ verifydp …` lines of code blocks
(continuations and `cd` followed), bare `verifydp …` lines and `.venv/bin/verifydp …` in
`&&` chains, and inline `verifydp <command> <argument>` spans — and each runs as a
subprocess of the installed console script, in a scratch copy of examples/ and
counterexamples/ with a user package `mylib` holding the functions the regress docs name.
A test asserts its exit status and one key line of its output. Before this, the suite drove
a private argparse harness for `regress` while the documented command failed with
`--map: missing value`.

A command that is too long for the suite (the suite runs within 10 minutes on 2 cores) runs
with a smaller budget (`RUN[...].swap`: the documented option values replaced, said why),
or is listed in `EXCLUDED` with what covers it instead. A command found in the documents
that is in neither table fails `test_every_documented_command_is_accounted_for`, and so does
a table entry the documents no longer show.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^\s*```")
INLINE = re.compile(r"`((?:\.venv/bin/)?verifydp [a-z][^`]*)`")
PLACEHOLDER = re.compile(r"^(\[.*|\(.*|\.\.\.|…|[A-Z][A-Z_:]+(\.\w+)?|[a-z]+(\|[a-z]+)+)$")


def _normal(text: str) -> str | None:
    """`verifydp …` with single spaces, or None for a synopsis with placeholders."""
    try:
        toks = shlex.split(text)
    except ValueError:
        return None
    if not toks or not (toks[0] == "verifydp" or toks[0].endswith("/verifydp")):
        return None
    if len(toks) < 3 or any(PLACEHOLDER.match(t) for t in toks[1:]):
        return None  # a bare command name in prose, or a usage synopsis
    return shlex.join(["verifydp", *toks[1:]])


def documented() -> dict[str, tuple[str, str]]:
    """Each command shown → (the document it is first shown in, its working directory)."""
    out: dict[str, tuple[str, str]] = {}
    for doc in DOCS:
        lines = doc.read_text(encoding="utf-8").splitlines()
        fenced, cwd, i = False, ".", 0
        while i < len(lines):
            line = lines[i]
            if FENCE.match(line):
                fenced, cwd = not fenced, "."
            elif fenced:
                text = line.strip().removeprefix("$ ")
                while text.endswith("\\") and i + 1 < len(lines):
                    i += 1
                    text = text[:-1].rstrip() + " " + lines[i].strip()
                text = re.sub(r"\s+#.*$", "", text)
                if text.startswith("cd "):
                    cwd = text[3:].strip()
                for seg in text.split("&&"):
                    cmd = _normal(seg.strip())
                    if cmd:
                        out.setdefault(cmd, (doc.name, cwd))
            else:
                for m in INLINE.finditer(line):
                    cmd = _normal(m.group(1))
                    if cmd:
                        out.setdefault(cmd, (doc.name, "."))
            i += 1
    return out


@dataclass(frozen=True)
class Run:
    """How a documented command is run and judged."""

    code: int                         # exit status
    key: str                          # a regular expression one output line must match
    swap: tuple[tuple[str, str], ...] = ()  # documented option value → the suite's, and why
    why: str = ""                     # why the swap
    needs: str = ""                   # an optional module (skipped with its reason without it)


SMALL_GRID = "sigma=1.0,batch_size=10,steps=1"
RUN: dict[str, Run] = {
    "verifydp check bun/thm4.3 bun/lemB.1": Run(0, r"^2 claims: 1 refuted, 1 holds-on-instance$"),
    "verifydp replay counterexamples/bun_thm3.1_upper.json": Run(
        0, r"^CONFIRMED: the claimed bound is violated$"),
    "verifydp audit examples/business_survey_proportional_rounded.toml --html report.html": Run(
        0, r"^HTML report: report\.html$"),
    "verifydp audit examples/dpsgd_poisson.toml --json": Run(0, r'^  "full_size": \{$'),
    "verifydp audit examples/deploy_dpsgd_balls_and_bins.toml": Run(
        0, r"^DEPLOYMENT VERDICT: ε ∈ \[1\.9449\d*, 1\.9467\d*\] at δ = 1e-5 after 10062"),
    "verifydp convert --from zcdp --rho 2.63 --to approx --delta 1e-10": Run(
        0, r"^  epsilon  printed +18\.193803 \(certified ±"),
    "verifydp regress mylib.privacy:amplified_epsilon --claim bun/thm2.2": Run(
        0, r"agrees with the printed formula on all 200 inputs tried"),
    "verifydp regress mylib:eps --accountant fixed-size": Run(
        1, r"^  minimal unsound input: UNSOUND", (("--accountant", "fixed-size"),),
        f"the default grid composes 12 settings with dp-accounting: --params {SMALL_GRID}",
        "dp_accounting"),
    "verifydp regress mylib:amplified --claim bun/thm2.2 --map "
    "eps=epsilon,m=sample_size,n=population_size": Run(0, r"agrees with the printed formula"),
    "verifydp regress mylib:amplified_np --claim bun/thm2.2 --vectorised": Run(
        0, r"agrees with the printed formula"),
    "verifydp regress mylib:loose_bound --claim bun/thm2.2 --sound-only --witness unsound.json":
        Run(0, r"^  sound: never below the certified truth"),
    "verifydp regress mylib:wor --claim must/table2:wor --params 'n=1..50,m=1|2,deltas=(0.25)'":
        Run(0, r"agrees with the printed formula"),
    "verifydp regress dp_accounting_poisson:epsilon --accountant poisson": Run(
        0, r"^  sound: never below the certified truth on the 1 inputs tried",
        (("--accountant", "poisson"),),
        f"the default grid composes 12 settings with dp-accounting: --params {SMALL_GRID}",
        "dp_accounting"),
    "verifydp regress dp_accounting_poisson:epsilon --accountant fixed-size --params "
    "'sigma=1.0,batch_size=10,steps=1|10' --witness w.json": Run(
        1, r"^  minimal unsound input: UNSOUND: .*\(sigma = 1, batch_size = 10, n = 1000, steps = 1",
        needs="dp_accounting"),
    "verifydp hunt bun/thm3.1:upper must/prop7 --budget 60 --workers 2 --json": Run(
        0, r'^  "budget_s": 5\.0,$', (("60", "5"),), "a 60 s hunt; 5 s still runs both grids"),
}

CATALOGUE = ("checks the whole catalogue (about 2.3 CPU-minutes on 2 cores): every claim is "
             "checked once by tests/cli/test_verdict_snapshot.py, the command path through "
             "the console script by `verifydp check bun/thm4.3 bun/lemB.1` above, and its "
             "witnesses leaving counterexamples/ unchanged by tests/cli/test_witness_stability.py")
HUNT_ALL = ("hunts the whole catalogue: its first round is every claim's checker grid (≈ 2 "
            "CPU-minutes whatever the budget); the hunt is covered by tests/hunt/ and the "
            "command by `verifydp hunt bun/thm3.1:upper must/prop7 …` above")
CLUSTER = ("needs a Dask cluster (a scheduler at a placeholder address, or a LocalCluster over "
           "the catalogue): tests/cli/test_cluster.py runs check and hunt on a real "
           "LocalCluster")
EXCLUDED: dict[str, str] = {
    "verifydp check --all": CATALOGUE,
    "verifydp hunt --all --budget 600": HUNT_ALL,
    "verifydp hunt --all --budget 600 --resume": HUNT_ALL + " (and --resume by tests/hunt/)",
    "verifydp check --all --executor dask --scheduler tcp://host:8786": CLUSTER,
    "verifydp hunt --all --budget 3600 --executor dask": CLUSTER,
    "verifydp hunt --all --budget 3600 --executor dask --scheduler tcp://scheduler:8786": CLUSTER,
    "verifydp hunt --all --budget 600 --executor dask --workers 2": CLUSTER,
    "verifydp check --json": ("a flag named in prose (docs/narrowing-review.md), not a command: "
                              "check needs claim ids or --all; --json is in tests/cli/"),
}

MYLIB = '''"""The user package the regress docs name (docs/regress.md)."""
import math

import numpy as np


def amplified(epsilon, sample_size, population_size):
    return math.log1p(sample_size / population_size * math.expm1(epsilon))


def amplified_np(eps, m, n):
    return np.log1p(m / n * np.expm1(eps))


def loose_bound(eps, m, n):  # e^{2ε} for e^ε: looser than the paper, still sound
    return math.log1p(m / n * math.expm1(2 * eps))


def wor(eps, deltas, n, m):
    return math.log1p(m / n * math.expm1(eps)), m / n * deltas[0]


def eps(sigma, batch_size, n, steps, delta):  # a Poisson PLD accountant, as DP-SGD code has
    import dp_accounting
    from dp_accounting.pld import PLDAccountant

    event = dp_accounting.PoissonSampledDpEvent(batch_size / n,
                                                dp_accounting.GaussianDpEvent(sigma))
    acc = PLDAccountant(value_discretization_interval=1e-4)
    acc.compose(event, steps)
    return float(acc.get_epsilon(delta))
'''
PRIVACY = '''import math


def amplified_epsilon(eps, m, n):
    return math.log1p(m / n * math.expm1(eps))
'''


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A scratch checkout: examples/ and counterexamples/ copied (commands write there) and
    the user package mylib."""
    ws = tmp_path_factory.mktemp("docs")
    shutil.copytree(ROOT / "examples", ws / "examples")
    shutil.copytree(ROOT / "counterexamples", ws / "counterexamples")
    (ws / "mylib").mkdir()
    (ws / "mylib" / "__init__.py").write_text(MYLIB, encoding="utf-8")
    (ws / "mylib" / "privacy.py").write_text(PRIVACY, encoding="utf-8")
    return ws


def test_every_documented_command_is_accounted_for() -> None:
    shown = documented()
    assert len(shown) >= 20, shown
    missing = sorted(c for c in shown if c not in RUN and c not in EXCLUDED)
    assert not missing, "documented commands neither run nor excluded: " + "; ".join(missing)
    stale = sorted(c for c in (*RUN, *EXCLUDED) if c not in shown)
    assert not stale, "table entries no document shows: " + "; ".join(stale)


def _argv(command: str, run: Run) -> list[str]:
    argv = shlex.split(command)
    for old, new in run.swap:
        if old in ("--accountant",):  # add the small grid after the design
            i = argv.index(old)
            argv[i + 2:i + 2] = ["--params", SMALL_GRID]
            continue
        argv[argv.index(old)] = new
    exe = shutil.which("verifydp") or str(Path(sys.executable).parent / "verifydp")
    return [exe, *argv[1:]]


# one console-script subprocess per documented command, in every run (issue 27: what the user
# types is what the tests run), not among the `slow` ones
@pytest.mark.parametrize("command", sorted(RUN))
def test_documented_command_runs(command: str, workspace: Path) -> None:
    run = RUN[command]
    if run.needs:
        pytest.importorskip(run.needs, reason=f"optional dependency ({run.needs}) not installed")
    _, cwd = documented()[command]
    proc = subprocess.run(_argv(command, run), capture_output=True, text=True, timeout=600,
                          cwd=workspace / cwd)
    assert proc.returncode == run.code, (proc.returncode, proc.stdout[-2000:], proc.stderr)
    assert "Traceback" not in proc.stderr
    lines = proc.stdout.splitlines()
    assert any(re.search(run.key, x) for x in lines), (run.key, proc.stdout[-3000:])
    if command.endswith("--json") and not command.startswith("verifydp hunt"):
        json.loads(proc.stdout)
