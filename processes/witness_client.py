"""An HTTP client of a C2SP tlog-witness: submit a checkpoint, read the newest cosigned one."""

from __future__ import annotations

from collections.abc import Sequence

import httpx

from ledger.audit.witness import WitnessRefusal, format_add_checkpoint
from ledger.errors import WitnessError

_REASON_OF_STATUS = {
    400: WitnessRefusal.MALFORMED,
    403: WitnessRefusal.NOT_SIGNED_BY_LOG,
    404: WitnessRefusal.UNKNOWN_LOG,
    409: WitnessRefusal.OLD_SIZE_MISMATCH,
    422: WitnessRefusal.BAD_PROOF,
}


class WitnessClient:
    """Talks to one witness at ``url`` (e.g. ``http://witness:8010``)."""

    def __init__(
        self, url: str, timeout: float = 5.0, transport: httpx.BaseTransport | None = None
    ):
        self.url = url.rstrip("/")
        self._http = httpx.Client(timeout=timeout, transport=transport)

    def close(self) -> None:
        """Close the connection pool."""
        self._http.close()

    def add_checkpoint(self, old_size: int, proof: Sequence[bytes], note: str) -> str:
        """POST /add-checkpoint; return the cosignature line(s), or raise :class:`WitnessError`
        (a 409 carries the witness's size in ``size``)."""
        try:
            response = self._http.post(
                f"{self.url}/add-checkpoint", content=format_add_checkpoint(old_size, proof, note)
            )
        except httpx.HTTPError as exc:
            raise WitnessError(
                WitnessRefusal.UNAVAILABLE, f"{self.url} does not answer: {type(exc).__name__}"
            ) from None
        if response.status_code == 200:
            return response.text
        raise _refusal(response)

    def latest(self, origin: str) -> str:
        """GET /checkpoint: the newest checkpoint the witness cosigned for ``origin``."""
        try:
            response = self._http.get(f"{self.url}/checkpoint", params={"origin": origin})
        except httpx.HTTPError as exc:
            raise WitnessError(
                WitnessRefusal.UNAVAILABLE, f"{self.url} does not answer: {type(exc).__name__}"
            ) from None
        if response.status_code == 200:
            return response.text
        if response.status_code == 404:
            raise WitnessError(
                WitnessRefusal.UNKNOWN_LOG, f"the witness has cosigned nothing for {origin!r}"
            )
        raise _refusal(response)


def _refusal(response: httpx.Response) -> WitnessError:
    status = response.status_code
    if status == 409:
        text = response.text.strip()
        size = int(text) if text.isdigit() else None
        return WitnessError(WitnessRefusal.OLD_SIZE_MISMATCH, f"the witness's size is {text}", size)
    reason = _REASON_OF_STATUS.get(status, WitnessRefusal.UNAVAILABLE)
    detail = response.text[:500]
    try:
        problem = response.json()
        slug = str(problem.get("type", "")).rpartition("/")[2].replace("-", "_")
        reason = WitnessRefusal(slug) if slug in WitnessRefusal._value2member_map_ else reason
        detail = str(problem.get("detail", detail))
    except ValueError:
        pass
    return WitnessError(reason, f"witness answered {status}: {detail}")
