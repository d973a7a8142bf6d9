"""Memory as a governed source: items an application retains between inferences.

``item.py`` is the aggregate (recorded, corrected by a new version, revoked), ``sources.py``
checks what an item came from (spans and claims of the ledger), ``memory_desk.py`` holds the
commands and the rule of who may see an item. Receipts use memory through their pool
(``ledger/receipts/memory_pool.py``); docs/memory.md.
"""

from ledger.memory.item import MemoryItem, MemoryVersion, check_memory_id
from ledger.memory.memory_desk import MemoryDesk, MemoryDraft, MemoryWrite
from ledger.memory.sources import ClaimFacts, ClaimSource, SourceChecks

__all__ = [
    "ClaimFacts",
    "ClaimSource",
    "MemoryDesk",
    "MemoryDraft",
    "MemoryItem",
    "MemoryVersion",
    "MemoryWrite",
    "SourceChecks",
    "check_memory_id",
]
