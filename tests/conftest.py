"""Shared fixtures."""

import pytest
import sklearn


@pytest.fixture
def routing():
    """Metadata routing on for one test only: the global config must not leak."""
    with sklearn.config_context(enable_metadata_routing=True):
        yield


@pytest.fixture
def prediction_calls():
    """The prediction calls of the recording models in _boosters, from this test only."""
    from _boosters import PREDICTION_CALLS

    PREDICTION_CALLS.clear()
    yield PREDICTION_CALLS
    PREDICTION_CALLS.clear()
