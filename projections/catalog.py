"""The read models: the one list of projections.

Every projection of the read side is named here once, in the order a catch-up runs them, with
its tables and whether it is *replayed*: rebuilt from the verified events alone by ``provledger
replay`` and ``verify --read-models`` and digested (the registry and the receipts). The read
side (:mod:`projections.service`), the replay (:mod:`projections.replay`) and the read-model
check (:mod:`projections.read_model_check`) take their projections from :data:`READ_MODELS`;
a new projection is one entry here (and its module and tables).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sqlalchemy import Engine, Table

from ledger.crypto.signing import SigningKey
from projections.receipts import ReceiptsProjection
from projections.registry import RegistryProjection
from projections.retrieval import RetrievalProjection
from projections.runner import Projection
from projections.schema import (
    RECEIPT_TABLES,
    REGISTRY_TABLES,
    RETRIEVAL_TABLES,
    TRANSPARENCY_TABLES,
)
from projections.transparency import TransparencyProjection


@dataclass(frozen=True)
class ProjectionParts:
    """What a projection may be built with: the read-model engine and, for the transparency
    log, the key that signs its checkpoints, its origin and the keys it trusts."""

    engine: Engine
    signing_key: SigningKey | None = None
    origin: str = ""
    trusted_keys: Sequence[bytes] = ()


def _transparency(parts: ProjectionParts) -> Projection:
    assert parts.signing_key is not None, "the transparency log signs its checkpoints"
    return TransparencyProjection(
        parts.engine, parts.signing_key, parts.origin, list(parts.trusted_keys)
    )


@dataclass(frozen=True)
class ReadModel:
    """One read model: its name (the projection's, its tracking row's), its tables, whether
    the replay rebuilds and digests it, and how its projection is built."""

    name: str
    tables: tuple[Table, ...]
    replayed: bool
    build: Callable[[ProjectionParts], Projection]


READ_MODELS: tuple[ReadModel, ...] = (
    ReadModel("registry", REGISTRY_TABLES, True, lambda _: RegistryProjection()),
    ReadModel("receipts", RECEIPT_TABLES, True, lambda _: ReceiptsProjection()),
    ReadModel("transparency", TRANSPARENCY_TABLES, False, _transparency),
    ReadModel("retrieval", RETRIEVAL_TABLES, False, lambda _: RetrievalProjection()),
)
"""Every read model, in the order a catch-up runs them."""

REPLAYED: tuple[ReadModel, ...] = tuple(model for model in READ_MODELS if model.replayed)
"""The read models the replay rebuilds from the verified events and digests."""

REPLAYED_TABLES: tuple[Table, ...] = tuple(table for model in REPLAYED for table in model.tables)
"""The tables of :data:`REPLAYED`, in the order their digest reads them."""
