"""The private evaluation engine."""
