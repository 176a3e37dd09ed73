"""``python -m sat``: the same as the ``satreport`` command."""

import sys

from sat.cli import main

sys.exit(main())
