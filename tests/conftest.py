"""Shared fixtures."""

import pytest
import sklearn


@pytest.fixture
def routing():
    """Metadata routing on for one test only: the global config must not leak."""
    with sklearn.config_context(enable_metadata_routing=True):
        yield
