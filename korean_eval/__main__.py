"""``python -m korean_eval``: see :mod:`korean_eval.cli.main`."""

import sys

from korean_eval.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
