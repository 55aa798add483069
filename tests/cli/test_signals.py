"""Signals to the main process alone and hostile environments (issue 28).

CI timeouts and supervisors signal the main pid, not the process group: SIGINT and SIGTERM
must end `check --all --workers 2` within seconds (its workers went on with every claim they
had been handed), with the witnesses already written whole; SIGKILL cannot be caught, so the
workers of `hunt --all --workers 2` must notice their parent's death themselves. A Ctrl-C
while the engine imports, an ASCII-only stdout and a deleted working directory are one line.
The runs overlap (each waits for its own moment), so the file costs about one run's wall
time. Linux only: it reads /proc for the workers.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")

ENV = {**os.environ, "PYTHONUNBUFFERED": "1"}
STOP_S = 10.0  # "within a few seconds", with room for a loaded CI machine


def verifydp(*argv: str) -> list[str]:
    return [sys.executable, "-m", "verifydp", *argv]


def children(pid: int) -> set[int]:
    out = set()
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.add(int(d.name))
    return out


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def wait_for_workers(proc: subprocess.Popen[bytes], n: int, timeout: float = 90) -> set[int]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        kids = {k for k in children(proc.pid) if alive(k)}
        if len(kids) >= n:
            return kids
        time.sleep(0.1)
    raise AssertionError(f"no {n} workers appeared (exit {proc.poll()})")


def test_signals_to_the_main_pid_stop_the_workers(tmp_path: Path) -> None:
    runs = {}
    for sig in (signal.SIGINT, signal.SIGTERM):
        wdir = tmp_path / sig.name
        runs[sig] = (wdir, subprocess.Popen(
            verifydp("check", "--all", "--workers", "2", "--no-progress", "--witness-dir",
                     str(wdir)), stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV,
            cwd=tmp_path))
    hunt = subprocess.Popen(
        verifydp("hunt", "--all", "--workers", "2", "--no-progress", "--budget", "300",
                 "--no-witnesses", "--state", str(tmp_path / "state.json")),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV, cwd=tmp_path)
    try:
        workers = {sig: wait_for_workers(proc, 2) for sig, (_, proc) in runs.items()}
        hunt_workers = wait_for_workers(hunt, 2)
        time.sleep(2)  # mid-run: the workers are deep in their claims
        for sig, (_, proc) in runs.items():
            proc.send_signal(sig)  # the main pid alone, not its group
        hunt.kill()
        for sig, (wdir, proc) in runs.items():
            start = time.monotonic()
            _, err = proc.communicate(timeout=60)
            took = time.monotonic() - start
            assert took < STOP_S, f"{sig.name}: exit took {took:.1f} s"
            assert proc.returncode == (130 if sig == signal.SIGINT else 143), err.decode()
            last = err.decode().strip().splitlines()[-1]
            assert last == ("verifydp: interrupted" if sig == signal.SIGINT
                            else "verifydp: terminated") and "Traceback" not in err.decode()
            assert not any(alive(w) for w in workers[sig]), sig.name
            for f in wdir.glob("*.json") if wdir.exists() else ():
                json.loads(f.read_text(encoding="utf-8"))  # whole files, never torn
        hunt.wait(timeout=60)
        deadline = time.monotonic() + STOP_S
        while any(alive(w) for w in hunt_workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(alive(w) for w in hunt_workers), "hunt workers outlived SIGKILL"
    finally:
        for _, proc in runs.values():
            if proc.poll() is None:
                proc.kill()
        if hunt.poll() is None:
            hunt.kill()


def test_start_up_and_environment(tmp_path: Path) -> None:
    """Started together: Ctrl-C during the imports, an ASCII stdout, a deleted directory."""
    gone = tmp_path / "gone"
    gone.mkdir()
    early = subprocess.Popen(verifydp("claims"), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env=ENV, cwd=tmp_path)
    ascii_run = subprocess.Popen(verifydp("claims"), stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, env={**ENV, "PYTHONIOENCODING": "ascii"},
                                 cwd=tmp_path)
    # the console script runs from wherever it is: `python -m` would need the directory
    script = Path(sys.executable).with_name("verifydp")
    gone_run = subprocess.Popen([str(script), "claims"] if script.exists() else
                                [sys.executable, "-c", "from verifydp.cli import main; main()"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV, cwd=gone)
    gone.rmdir()
    time.sleep(0.3)
    early.send_signal(signal.SIGINT)
    out, err = early.communicate(timeout=60)
    assert early.returncode in (0, 130) and "Traceback" not in err.decode(), err.decode()
    if early.returncode == 130:
        assert err.decode().strip() == "verifydp: interrupted"
    out, err = ascii_run.communicate(timeout=60)
    assert ascii_run.returncode == 0 and not err, err.decode()
    assert "eps'" in out.decode("ascii") and "bun/thm2.2" in out.decode("ascii")
    out, err = gone_run.communicate(timeout=60)
    assert gone_run.returncode == 2 and "Traceback" not in err.decode(), err.decode()
    assert err.decode().count("\n") == 1
