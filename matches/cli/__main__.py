"""``python -m matches.cli``: the ``ggp`` command."""

import sys

from matches.cli import main

sys.exit(main())
