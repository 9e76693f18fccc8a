"""The private evaluation engine."""
from ._validation import _factorize_qid as factorize_query_ids
