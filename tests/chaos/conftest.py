"""The chaos scenarios' short pytest versions belong to the ``topology`` group."""

from __future__ import annotations

import pytest

from tests.load.topology import TOPOLOGY_MARKER


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", TOPOLOGY_MARKER)
