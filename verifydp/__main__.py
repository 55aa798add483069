"""`python -m verifydp` runs the command line."""

import sys

from verifydp.cli import main

sys.exit(main())
