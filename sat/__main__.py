"""``python -m sat``: the same as the ``satreport`` command."""

import sys

from sat.cli import main

if __name__ == "__main__":  # not when a worker process imports the main module
    sys.exit(main())
