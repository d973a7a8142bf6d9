"""A committed claim's standing today, with dates: what happened to it and to its evidence
since the gate judged it.

The gate's verdict (and a bundle's cryptographic checks) say what held when the claim was
committed, and that the record of it is intact; they do not say the claim still stands. A
receipt expires (its evidence changed, its time passed, its policy was retired), a cited
version is superseded, a source withdrawn, a citation repaired. A reader sees both, side by
side, so a claim verified once over a version replaced since is never read as current.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup

from api.console import words
from api.console.dates import when
from projections.citation_queries import CitedVersion, Pair


@dataclass(frozen=True)
class Fact:
    """One thing that happened to a claim or its evidence: ``kind`` (``expired``,
    ``expires``, ``superseded``, ``withdrawn``, ``repaired``, ``repair-failed``) and a
    sentence with its date."""

    kind: str
    text: Markup


@dataclass(frozen=True)
class Standing:
    """A committed claim's standing today: ``stands`` when nothing changed, and the facts."""

    stands: bool
    facts: tuple[Fact, ...]

    @property
    def summary(self) -> str:
        """One word for a badge: ``stands``, or the most serious fact's kind."""
        if self.stands:
            return "stands"
        kinds = [f.kind for f in self.facts]
        for kind in ("withdrawn", "expired", "superseded", "repaired", "repair-failed"):
            if kind in kinds:
                return kind
        return "stands"


def _receipt_facts(status: Mapping[str, Any], expires_at: str | None) -> list[Fact]:
    if status["status"] == "expired":
        reason = str(status["reason"])
        text = Markup('The receipt expired on {}: {}. <code class="code">{}</code>').format(
            when(status["at"]), words.expiry_words(reason), reason
        )
        return [Fact("expired", text)]
    if expires_at:
        return [Fact("expires", Markup("The receipt expires on {}.").format(when(expires_at)))]
    return []


def _version_facts(cited: Sequence[CitedVersion]) -> list[Fact]:
    facts: list[Fact] = []
    for version in cited:
        name = Markup("{} version {}").format(version.title, version.version)
        if version.superseded_at:
            until = (
                Markup(", in force until {}").format(when(version.effective_to))
                if version.effective_to
                else ""
            )
            facts.append(
                Fact(
                    "superseded",
                    Markup("{} was superseded on {}{}.").format(
                        name, when(version.superseded_at), until
                    ),
                )
            )
    withdrawn = {v.source_id: v for v in cited if v.withdrawn_at}
    for version in withdrawn.values():
        reason = Markup(": {}").format(version.withdraw_reason) if version.withdraw_reason else ""
        facts.append(
            Fact(
                "withdrawn",
                Markup("{} was withdrawn on {}{}.").format(
                    version.title, when(version.withdrawn_at), reason
                ),
            )
        )
    return facts


def _repair_facts(claim: Mapping[str, Any], repaired_at: Sequence[str]) -> list[Fact]:
    facts: list[Fact] = []
    for index, repair in enumerate(claim.get("repairs", [])):
        at = when(repaired_at[index]) if index < len(repaired_at) else Markup("an unknown date")
        n = int(repair.get("binding_index", 0)) + 1
        new = repair.get("new_binding") or {}
        if repair.get("outcome") == "repaired" and new:
            old = repair.get("previous_binding") or {}
            text = Markup(
                "Citation [{}] was repaired on {}: moved from span {} to span {}."
            ).format(n, at, old.get("span_id", "?"), new.get("span_id", "?"))
            facts.append(Fact("repaired", text))
        else:
            text = Markup(
                "On {}, a repair of citation [{}] found no span of the pool that passes the gate."
            ).format(at, n)
            facts.append(Fact("repair-failed", text))
    return facts


def claim_standing(
    receipt: Mapping[str, Any],
    claim: Mapping[str, Any],
    cited: Mapping[Pair, CitedVersion],
    repaired_at: Sequence[str] = (),
) -> Standing:
    """The standing today of ``claim`` (a committed claim of the receipt document
    ``receipt``), given the registry's facts on the versions it cites."""
    versions = [
        cited[(b["source_id"], b["version"])]
        for b in claim.get("bindings", [])
        if b.get("source_id") is not None and (b["source_id"], b.get("version")) in cited
    ]
    unique = list({(v.source_id, v.version): v for v in versions}.values())
    facts = [
        *_receipt_facts(receipt["status"], receipt.get("expires_at")),
        *_version_facts(unique),
        *_repair_facts(claim, repaired_at),
    ]
    stands = not any(f.kind in ("expired", "superseded", "withdrawn") for f in facts)
    return Standing(stands, tuple(facts))
