"""The entailment verifier over HTTP: an OpenAI-compatible ``/chat/completions`` endpoint.

The adapter of :class:`ledger.receipts.entailment.EntailmentVerifier`; the domain names no HTTP
client.
"""

from __future__ import annotations

import httpx

from ledger.errors import EntailmentError
from ledger.receipts.entailment import EntailmentResult, parse_verdict

PROMPT = (
    "You check citations. Using ONLY the evidence below and no outside knowledge, answer "
    "whether the evidence supports the claim. Answer with exactly one word: yes (fully "
    "supported), partial (some of it is supported), or no (not supported or contradicted).\n\n"
    "Evidence:\n{evidence}\n\nClaim:\n{claim}\n\nAnswer:"
)


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
