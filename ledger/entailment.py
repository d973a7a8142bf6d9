"""The pluggable entailment tier: a model asked whether a span supports a claim.

It never decides a claim's status and never runs in the request path: a sampler follows
committed claims in the background (``projections.entailment_sampler``), records each verdict
as a signed event, and ``no`` and ``partial`` verdicts land in a review queue for people.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

import httpx

from ledger.errors import LedgerError


class EntailmentVerdict(StrEnum):
    """Does the evidence support the claim?"""

    YES = "yes"
    NO = "no"
    PARTIAL = "partial"


@dataclass(frozen=True)
class EntailmentResult:
    """One verifier's answer for one claim."""

    verdict: EntailmentVerdict
    verifier: str
    model: str
    raw: str


class EntailmentError(LedgerError):
    """The verifier could not give an answer (unreachable, malformed reply)."""


class EntailmentVerifier(Protocol):
    """Asks whether ``evidence`` supports ``claim``, using no outside knowledge."""

    name: str

    def check(self, claim: str, evidence: str) -> EntailmentResult:
        """Return the verdict, or raise :class:`EntailmentError`."""


def sampled(claim_id: str, rate: float) -> bool:
    """Deterministic sampling: the same claim is always in or out at a given rate."""
    if rate <= 0:
        return False
    if rate >= 1:
        return True
    bucket = int.from_bytes(hashlib.sha256(claim_id.encode()).digest()[:8], "big")
    return bucket / 2**64 < rate


PROMPT = (
    "You check citations. Using ONLY the evidence below and no outside knowledge, answer "
    "whether the evidence supports the claim. Answer with exactly one word: yes (fully "
    "supported), partial (some of it is supported), or no (not supported or contradicted).\n\n"
    "Evidence:\n{evidence}\n\nClaim:\n{claim}\n\nAnswer:"
)
_WORD = re.compile(r"[a-z]+")


def parse_verdict(text: str) -> EntailmentVerdict:
    """The first yes/no/partial word of a reply; anything else is an error."""
    for word in _WORD.findall(text.lower()):
        if word in ("yes", "no", "partial"):
            return EntailmentVerdict(word)
    raise EntailmentError(f"reply has no yes/no/partial verdict: {text[:80]!r}")


class HttpEntailmentVerifier:
    """An OpenAI-compatible ``/chat/completions`` endpoint as verifier."""

    name = "http"

    def __init__(
        self, base_url: str, model: str, api_key: str | None = None, timeout: float = 30.0
    ) -> None:
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.model = model
        self._client = httpx.Client(base_url=base_url.rstrip("/"), headers=headers, timeout=timeout)

    def check(self, claim: str, evidence: str) -> EntailmentResult:
        """Ask the model; temperature 0, one short answer."""
        body = {
            "model": self.model,
            "temperature": 0,
            "max_tokens": 5,
            "messages": [
                {"role": "user", "content": PROMPT.format(evidence=evidence, claim=claim)}
            ],
        }
        try:
            response = self._client.post("/chat/completions", json=body)
            response.raise_for_status()
            content = response.json()["choices"][0]["message"]["content"]
        except (httpx.HTTPError, ValueError, KeyError, IndexError, TypeError) as exc:
            raise EntailmentError(f"entailment endpoint failed: {type(exc).__name__}") from exc
        if not isinstance(content, str):
            raise EntailmentError("entailment reply has no text content")
        return EntailmentResult(parse_verdict(content), self.name, self.model, content[:200])

    def close(self) -> None:
        """Close the HTTP client."""
        self._client.close()
