"""verifydp: exact verification of privacy-amplification claims about sampling designs."""

__version__ = "0.1.0"
