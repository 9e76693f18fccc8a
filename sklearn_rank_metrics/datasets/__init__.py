"""Data sets for learning to rank: a synthetic generator, a small real set and a TREC run."""

from ._base import load_lambdarank_example, load_trec_example
from ._samples_generator import make_ranking

__all__ = ["load_lambdarank_example", "load_trec_example", "make_ranking"]
