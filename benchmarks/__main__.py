"""``python -m benchmarks``: the harness's command line (:func:`benchmarks.harness.main`)."""

import sys

from benchmarks.harness import main

sys.exit(main())
