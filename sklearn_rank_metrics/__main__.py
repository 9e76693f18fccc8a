"""``python -m sklearn_rank_metrics``: trec_eval's command line (see :mod:`.trec._command`)."""

import sys

from .trec._command import main

if __name__ == "__main__":
    sys.exit(main())
