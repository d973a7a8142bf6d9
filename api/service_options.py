"""What the settings choose for the services: the commit gate's configuration, the
entailment verifier and the witness submitter (none when their settings are unset). The
composition root (``api/services.py``) calls these; a wrong setting is a
:class:`ConfigurationError` naming it."""

from __future__ import annotations

from api.settings import Settings
from ledger.crypto.cosignature import parse_witness_vkey
from ledger.errors import ConfigurationError, LedgerError
from ledger.gate import GateConfig
from processes.entailment_http import HttpEntailmentVerifier
from processes.witness_client import WitnessClient
from processes.witness_submitter import WitnessSubmitter
from projections.service import ReadSide


def gate_config(settings: Settings) -> GateConfig:
    """The gate's configuration: library defaults unless a setting overrides them."""
    if settings.support_threshold is None:
        return GateConfig()
    return GateConfig(support_threshold=settings.support_threshold)


def entailment_verifier(settings: Settings) -> HttpEntailmentVerifier | None:
    """The configured entailment verifier (None: the default ``none`` tier)."""
    if settings.entailment == "none" or settings.entailment_sample_rate <= 0:
        return None
    if not settings.entailment_url:
        raise ConfigurationError("PROVLEDGER_ENTAILMENT=http needs PROVLEDGER_ENTAILMENT_URL")
    return HttpEntailmentVerifier(
        settings.entailment_url, settings.entailment_model, settings.entailment_key()
    )


def witness_submitter(settings: Settings, read_side: ReadSide) -> WitnessSubmitter | None:
    """The witness submitter when ``PROVLEDGER_WITNESS_URL`` is set (it needs the vkey too)."""
    if not settings.witness_url:
        return None
    if not settings.witness_vkey:
        raise ConfigurationError("PROVLEDGER_WITNESS_URL needs PROVLEDGER_WITNESS_VKEY")
    try:
        key = parse_witness_vkey(settings.witness_vkey)
    except LedgerError as exc:
        raise ConfigurationError(f"PROVLEDGER_WITNESS_VKEY: {exc}") from exc
    return WitnessSubmitter(
        read_side.db.sync, WitnessClient(settings.witness_url), key, settings.log_origin
    )
