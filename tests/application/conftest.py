"""Application-service tests: the services the API and the CLI use, driven without HTTP."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from api.services import Services, build_services
from api.settings import Settings


@pytest.fixture
def services(settings: Settings) -> Iterator[Services]:
    """The services of a fresh ledger on the parametrised backend, as the lifespan wires them."""
    built = build_services(settings)
    built.read_side.catch_up()
    yield built
    built.close()
