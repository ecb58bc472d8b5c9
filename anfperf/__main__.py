"""``python -m anfperf ...``: the `anfperf` command, with the interpreter it is run by."""

import sys

from anfperf.cli import main

if __name__ == "__main__":
    sys.exit(main())
