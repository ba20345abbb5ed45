"""`python -m bench.gen_desks --out DIR [--seed N]`: see bench/gen_desks/__init__.py."""

import sys

from bench.gen_desks import main

sys.exit(main())
