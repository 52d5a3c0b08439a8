"""``python -m autograph_lite ...`` runs the same command line as ``autograph-lite ...``."""
import sys

from autograph_lite.cli import main

sys.exit(main())
