"""Auditing a proposed sampling design (issue 6): design files, `verifydp audit`, reports.

    from verifydp.audit import audit
    report = audit("examples/dpsgd_poisson.toml")
    print(report.headline())

The package itself is callable too, so `verifydp.audit(design)` is `audit(design)`.
"""

import sys
import types

from verifydp.audit.core import audit
from verifydp.audit.deployment import Deployment, audit_deployment
from verifydp.audit.report import Report
from verifydp.audit.spec import AuditSpec, DesignFileError, load_design, parse_design

__all__ = ["AuditSpec", "Deployment", "DesignFileError", "Report", "audit", "audit_deployment",
           "load_design", "parse_design"]


class _CallableModule(types.ModuleType):
    """`verifydp.audit(design, ...)` mirrors the CLI's `verifydp audit DESIGN`."""

    def __call__(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        return audit(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
