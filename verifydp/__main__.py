"""`python -m verifydp` runs the command line."""

import sys

from verifydp.cli.main import main

sys.exit(main())
