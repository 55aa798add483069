"""The child process in which `verifydp regress` runs the user's function (issue 28).

Run as a script (``python child.py MODULE:FUNCTION``), never imported by the package, so it
starts without verifydp's imports. It imports the user's module with the current directory
first on `sys.path`, then answers one JSON request per line on stdin with one JSON line on
the protocol stream: the user's stdout and stderr go to a capture file, so whatever the
function prints cannot reach the report or the protocol. Nothing the function does can end
the verifier: an exception, `sys.exit`, `GeneratorExit` or `KeyboardInterrupt` is reported
as a message; `os._exit`, a crash or a hang ends only this process (`verifydp.regress.sandbox`
sees it and kills it). Values cross as JSON with floats in hex, so they arrive exactly.
"""

from __future__ import annotations

import importlib
import inspect
import json
import numbers
import os
import sys
from fractions import Fraction
from typing import Any

MAX_INT_BITS = 1100  # past float's range: refused by the parent, carried as text
MAX_ITEMS = 1_000_000


def die_with_parent() -> None:
    """Ask Linux to end this process when the verifier dies (SIGKILL included)."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            import signal

            ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass


def encode(v: Any, depth: int = 0) -> Any:
    """A value as JSON: floats exactly (hex), ints as text, arrays with their shape; anything
    else as {"junk": what it is}, for the parent to refuse by name."""
    if depth > 4:
        return {"junk": "a value nested too deeply"}
    if isinstance(v, bool):
        return {"junk": f"a bool ({v})"}
    if isinstance(v, int):
        if v.bit_length() > MAX_INT_BITS:
            return {"junk": f"an integer of {v.bit_length()} bits (beyond a float's range)"}
        return {"i": str(v)}
    if isinstance(v, float):
        return {"f": v.hex()}
    if isinstance(v, Fraction):
        return {"q": str(v)} if len(str(v)) < 400 else {"junk": "a huge fraction"}
    if isinstance(v, (tuple, list)):
        if len(v) > MAX_ITEMS:
            return {"junk": f"a {type(v).__name__} of {len(v)} items"}
        return {"t" if isinstance(v, tuple) else "l": [encode(x, depth + 1) for x in v]}
    np = sys.modules.get("numpy")
    if np is not None and isinstance(v, np.ndarray):
        if v.dtype.kind not in "biuf" or v.size > MAX_ITEMS:
            return {"junk": f"an array of dtype {v.dtype} and shape {v.shape}"}
        return {"a": [float(x).hex() for x in v.astype(float).reshape(-1)],
                "shape": list(v.shape)}
    if np is not None and isinstance(v, np.generic):
        return encode(v.item(), depth + 1)
    if isinstance(v, str | bytes):
        return {"junk": f"a {type(v).__name__} ({v[:40]!r})"}
    if isinstance(v, numbers.Real):  # Decimal, sympy numbers: their float
        try:
            return {"f": float(v).hex()}
        except (TypeError, ValueError, OverflowError) as exc:
            return {"junk": f"a {type(v).__name__} without a float value ({exc})"}
    name = type(v).__name__
    return {"junk": f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"}


def decode(v: Any) -> Any:
    """Arguments from the parent: the inverse of `encode` for numbers, tuples and arrays."""
    if isinstance(v, dict):
        if "f" in v:
            return float.fromhex(v["f"])
        if "i" in v:
            return int(v["i"])
        if "t" in v:
            return tuple(decode(x) for x in v["t"])
        if "l" in v:
            return [decode(x) for x in v["l"]]
        if "a" in v:
            import numpy as np

            return np.asarray([float.fromhex(x) for x in v["a"]], dtype=float).reshape(
                v["shape"])
    raise ValueError(f"cannot decode an argument: {v!r}")


def _what(exc: BaseException) -> dict[str, Any]:
    if isinstance(exc, SystemExit):
        return {"exited": exc.code if isinstance(exc.code, int | None) else str(exc.code)}
    text = " ".join(str(exc).split())[:300]
    out = {"raised": f"{type(exc).__name__}: {text}" if text else type(exc).__name__}
    if isinstance(exc, ModuleNotFoundError):
        out["missing"] = exc.name or "?"
    return out


def signature_of(fn: Any) -> list[list[Any]] | None:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    return [[p.name, p.kind.name, p.default is not p.empty] for p in sig.parameters.values()]


def main() -> None:
    die_with_parent()
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]  # not a module dir
    requests = os.fdopen(os.dup(0), "r", encoding="utf-8")
    proto = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    nothing = os.open(os.devnull, os.O_RDONLY)
    os.dup2(nothing, 0)  # the function reading stdin gets nothing, not the requests
    capture = os.open(os.environ.get("VERIFYDP_CHILD_CAPTURE", os.devnull),
                      os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(capture, 1)
    os.dup2(capture, 2)

    def send(obj: dict[str, Any]) -> None:
        proto.write(json.dumps(obj) + "\n")
        proto.flush()

    target = sys.argv[1]
    module, _, name = target.partition(":")
    cwd = os.getcwd()
    if cwd not in sys.path:
        sys.path.insert(0, cwd)
    try:
        obj: Any = importlib.import_module(module)
    except BaseException as exc:  # noqa: BLE001 — the user's import, whatever it does
        send({"import": _what(exc)})
        return
    for part in name.split("."):
        if not hasattr(obj, part):
            send({"import": {"no_attribute": name}})
            return
        obj = getattr(obj, part)
    if not callable(obj):
        send({"import": {"not_callable": True}})
        return
    send({"ready": signature_of(obj)})
    for line in requests:
        req = json.loads(line)
        try:
            args = [decode(a) for a in req.get("args", [])]
            kwargs = {k: decode(v) for k, v in req.get("kwargs", {}).items()}
            result = obj(*args, **kwargs)
            reply = {"ok": encode(result)}
        except BaseException as exc:  # noqa: BLE001 — SystemExit, GeneratorExit included
            reply = _what(exc)
        send(reply)
        if "exited" in reply:
            return


if __name__ == "__main__":
    try:
        main()
    except BaseException:  # noqa: BLE001 — a broken pipe or a signal: the parent reports it
        os._exit(70)
