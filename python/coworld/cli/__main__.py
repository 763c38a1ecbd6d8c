"""`python -m coworld.cli`."""

import sys

from . import main

sys.exit(main())
