"""Entitlements: who may see which source, decided before any evidence is read.

:mod:`ledger.access.attributes` holds the attribute records (a source's :class:`SourceAccess`,
a requester's :class:`Principal`, a key's :class:`Pins`) and :mod:`ledger.access.policy` the
rule language, :data:`DEFAULT_ACCESS_POLICY` and :func:`decide`.
"""

from ledger.access.attributes import Pins, Principal, SourceAccess
from ledger.access.policy import (
    DEFAULT_ACCESS_POLICY,
    AccessDecision,
    AccessPolicy,
    decide,
)

__all__ = [
    "DEFAULT_ACCESS_POLICY",
    "AccessDecision",
    "AccessPolicy",
    "Pins",
    "Principal",
    "SourceAccess",
    "decide",
]
