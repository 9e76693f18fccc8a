"""Data sets for learning to rank: a synthetic generator and a small real set."""

from ._base import load_lambdarank_example
from ._samples_generator import make_ranking

__all__ = ["load_lambdarank_example", "make_ranking"]
