"""The user's function behind a process boundary (issue 28; docs/regress.md).

`verifydp regress MODULE:FUNCTION` used to import and call the function in its own process,
so the function could end the verifier with the exit status of a verdict (`sys.exit(0)` read
as "agrees"), hang it, print into its report or hand it a string for a number. Now the module
is imported and the function called in a child process (`child.py`, a script: it starts
without verifydp's imports) that answers one call at a time over a pipe, with

* a time limit per call and one for all calls together, after which the child is killed;
* the child's stdout and stderr captured, never mixed with the report;
* results that cross as JSON (floats exactly, in hex) and are checked here: a finite number,
  an integer within a float's range, tuples or numeric arrays of them.

A failure that is not a verdict — the function exited, raised, hung, returned junk, or its
module did the same while being imported — is a `UserCodeError` (a usage error: one line,
exit 2) naming what the function did and at which input; once the child is gone every later
call fails the same way at once, so hypothesis's shrinking costs nothing. Exit statuses 0 and
1 therefore only ever come from the verifier's own judgement of the numbers.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import math
import os
import re
import select
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from verifydp.regress.core import MissingDependency, UsageError

CHILD = Path(__file__).with_name("child.py")
MAX_REPLY_BYTES = 64 * 2**20
_MODULE = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")


class UserCodeError(UsageError):
    """The user's function or module failed in a way that is not a verdict (exit 2)."""


@dataclass(frozen=True)
class Limits:
    """Wall-clock seconds: one call, every call together, and starting the child and
    importing the module (at least `import_s`, however short a call must be: a loaded
    machine takes seconds to start an interpreter)."""

    call_s: float = 60.0
    total_s: float = 1800.0
    import_s: float = 60.0


def _where(args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    def show(v: Any) -> str:
        if isinstance(v, np.ndarray):
            return f"array{list(v.reshape(-1)[:4])}{'…' if v.size > 4 else ''}"
        return repr(v)
    parts = [show(a) for a in args] + [f"{k}={show(v)}" for k, v in kwargs.items()]
    return ", ".join(parts)[:300]


def _encode(v: Any) -> Any:
    if isinstance(v, bool) or v is None:
        raise TypeError(f"cannot send {v!r} to the function")
    if isinstance(v, int):
        return {"i": str(v)}
    if isinstance(v, float):
        return {"f": v.hex()}
    if isinstance(v, tuple | list):
        return {"t" if isinstance(v, tuple) else "l": [_encode(x) for x in v]}
    if isinstance(v, np.ndarray):
        return {"a": [float(x).hex() for x in v.astype(float).reshape(-1)], "shape": list(v.shape)}
    if isinstance(v, np.generic):
        return _encode(v.item())
    if isinstance(v, Fraction):
        return {"f": float(v).hex()}
    raise TypeError(f"cannot send a {type(v).__name__} to the function")


def _decode(v: Any, what: str) -> Any:
    """A result from the child, checked: finite floats, integers within a float's range."""
    if not isinstance(v, dict) or len(v) not in (1, 2):
        raise UserCodeError(f"{what}: a malformed reply")
    if "junk" in v:
        raise UserCodeError(f"the function returned {v['junk']} {what}, not a number")
    if "f" in v:
        x = float.fromhex(v["f"])
        if not math.isfinite(x):
            raise UserCodeError(f"the function returned {x!r} {what}, not a finite number")
        return x
    if "i" in v:
        n = int(v["i"])
        if abs(n) > 2**1023:
            raise UserCodeError(f"the function returned an integer beyond a float's range {what}")
        return n
    if "q" in v:
        q = Fraction(v["q"])
        if abs(q) > 2**1023:
            raise UserCodeError(f"the function returned a fraction beyond a float's range {what}")
        return q
    if "t" in v or "l" in v:
        items = [_decode(x, what) for x in v.get("t", v.get("l"))]
        return tuple(items) if "t" in v else items
    if "a" in v:
        arr = np.asarray([float.fromhex(x) for x in v["a"]], dtype=float).reshape(v["shape"])
        if not np.all(np.isfinite(arr)):
            raise UserCodeError(f"the function returned an array holding nan or inf {what}")
        return arr
    raise UserCodeError(f"{what}: a malformed reply")


class Sandboxed:
    """The user's function in a child process; call it like the function itself (its
    signature is the function's, for `check_signature`)."""

    strict = True  # core: a failure of this callable is a usage error, never a finding

    def __init__(self, target: str, limits: Limits = Limits()) -> None:
        self.target = target
        self.limits = limits
        self.used_s = 0.0
        self.broken: UserCodeError | None = None
        self._buf = b""
        fd, self._capture = tempfile.mkstemp(prefix="verifydp-regress-", suffix=".log")
        os.close(fd)
        env = {**os.environ, "VERIFYDP_CHILD_CAPTURE": self._capture}
        self.proc = subprocess.Popen(
            [sys.executable, str(CHILD), target], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        module = target.partition(":")[0]
        try:
            ready = self._reply(max(limits.call_s, limits.import_s), f"importing {module!r}")
        except UserCodeError:
            self.close()
            raise
        if "import" in ready:
            self.close()
            raise UsageError(self._import_problem(module, ready["import"]))
        params = ready.get("ready")
        self._signature = None if params is None else inspect.Signature([
            inspect.Parameter(n, getattr(inspect.Parameter, kind),
                              default=None if has_default else inspect.Parameter.empty)
            for n, kind, has_default in params])
        self.__qualname__ = target

    @property
    def __signature__(self) -> inspect.Signature:
        """The function's own signature, as the child read it; a function without one
        (a builtin) has none here either, so it is called as it is."""
        if self._signature is None:
            raise ValueError(f"{self.target} has no inspectable signature")
        return self._signature

    def _import_problem(self, module: str, what: dict[str, Any]) -> str:
        if "no_attribute" in what:
            return f"{module!r} has no attribute {what['no_attribute']!r}"
        if "not_callable" in what:
            return f"{self.target} is not callable"
        if "exited" in what:
            return f"importing {module!r} called sys.exit({what['exited']!r})"
        return f"cannot import {module!r}: {what.get('raised', '?')}"

    def _reply(self, timeout: float, what: str) -> dict[str, Any]:
        """The child's next line, or a `UserCodeError` saying why there is none."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                self.close()
                raise UserCodeError(f"{what} did not finish within {timeout:g} s")
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                rc = self.close()
                raise UserCodeError(f"{what} ended its process (exit status {rc})")
            self._buf += chunk
            if len(self._buf) > MAX_REPLY_BYTES:
                self.close()
                raise UserCodeError(f"{what} returned more than {MAX_REPLY_BYTES} bytes")
        line, _, self._buf = self._buf.partition(b"\n")
        try:
            reply = json.loads(line)
        except ValueError:
            self.close()
            raise UserCodeError(f"{what}: the child process wrote a malformed reply") from None
        if not isinstance(reply, dict):
            raise UserCodeError(f"{what}: the child process wrote a malformed reply")
        return reply

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.broken is not None:
            raise self.broken
        where = f"at {_where(args, kwargs)}"
        left = self.limits.total_s - self.used_s
        if left <= 0:
            return self._break(f"the function used up the total time limit of "
                               f"{self.limits.total_s:g} s (next call {where})")
        assert self.proc.stdin is not None
        request = json.dumps({"args": [_encode(a) for a in args],
                              "kwargs": {k: _encode(v) for k, v in kwargs.items()}})
        start = time.monotonic()
        try:
            self.proc.stdin.write(request.encode() + b"\n")
            self.proc.stdin.flush()
            reply = self._reply(min(self.limits.call_s, left), f"the function {where}")
        except UserCodeError as exc:
            return self._break(str(exc))
        except OSError:  # the child is gone (a broken pipe)
            rc = self.close()
            return self._break(f"the function {where} ended its process (exit status {rc})")
        finally:
            self.used_s += time.monotonic() - start
        if "ok" in reply:
            return _decode(reply["ok"], where)
        if "exited" in reply:
            self.close()
            return self._break(f"the function called sys.exit({reply['exited']!r}) {where}")
        if "missing" in reply:
            raise MissingDependency.of(ModuleNotFoundError(name=str(reply["missing"])))
        raise UserCodeError(f"the function raised {reply.get('raised', '?')} {where}")

    def _break(self, message: str) -> Any:
        self.broken = UserCodeError(message)
        raise self.broken

    def close(self) -> int | None:
        """End the child (it exits on end of input; a hung one is killed)."""
        with contextlib.suppress(OSError):
            if self.proc.stdin is not None:
                self.proc.stdin.close()
        try:
            self.proc.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        with contextlib.suppress(OSError):
            if self.proc.stdout is not None:
                self.proc.stdout.close()
        with contextlib.suppress(OSError):
            os.unlink(self._capture)
        return self.proc.returncode


@contextlib.contextmanager
def sandboxed(target: str, limits: Limits = Limits()) -> Iterator[Sandboxed]:
    """The function MODULE:FUNCTION in a child process, ended on leaving."""
    module, sep, name = target.partition(":")
    if not sep or not _MODULE.fullmatch(module) or not name or \
            not all(p.isidentifier() for p in name.split(".")):
        raise UsageError(f"expected MODULE:FUNCTION, got {target!r}")
    fn = Sandboxed(target, limits)
    try:
        yield fn
    finally:
        fn.close()


__all__ = ["Limits", "Sandboxed", "UserCodeError", "sandboxed"]
