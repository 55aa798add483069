"""verifydp: exact verification of privacy-amplification claims about sampling designs."""

import importlib

__version__ = "0.1.0"


def __getattr__(name: str):  # type: ignore[no-untyped-def]
    """`verifydp.audit(design) -> Report` without loading the engine at import time (the
    subpackage is callable; binding the function here would shadow the subpackage)."""
    if name == "audit":
        return importlib.import_module("verifydp.audit")
    raise AttributeError(f"module 'verifydp' has no attribute {name!r}")
