"""The Compose file describes the fleet: PostgreSQL, two API replicas, one worker, a witness,
each with a health check, and every secret mounted from a file, none written inline.

Docker is not needed: the file is read as YAML and its structure checked.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker" / "compose.yaml"
SECRET_NAME = re.compile(r"PASSWORD|SECRET|TOKEN|API_KEY|SIGNING_KEY|HMAC_KEY", re.IGNORECASE)


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    document: dict[str, Any] = yaml.safe_load(COMPOSE.read_text())
    return document


def _environment(service: dict[str, Any]) -> dict[str, str]:
    environment = service.get("environment") or {}
    if isinstance(environment, list):  # the KEY=VALUE form
        return dict(item.split("=", 1) for item in environment)
    return {key: "" if value is None else str(value) for key, value in environment.items()}


def test_the_fleet_has_postgres_two_api_replicas_a_worker_and_a_witness(
    compose: dict[str, Any],
) -> None:
    services = compose["services"]

    assert set(services) == {"postgres", "api", "worker", "witness"}
    assert services["api"]["deploy"]["replicas"] == 2
    assert "--no-background" in services["api"]["command"]
    assert services["worker"]["command"][0] == "worker"
    assert services["worker"].get("deploy", {}).get("replicas", 1) == 1


def test_every_service_has_a_health_check_and_the_api_probes_readiness(
    compose: dict[str, Any],
) -> None:
    services = compose["services"]

    for name, service in services.items():
        test = service.get("healthcheck", {}).get("test")
        assert test, f"{name} has no health check"
    assert "/readyz" in " ".join(services["api"]["healthcheck"]["test"])
    heartbeat = services["worker"]["command"][
        services["worker"]["command"].index("--heartbeat") + 1
    ]
    assert heartbeat in " ".join(services["worker"]["healthcheck"]["test"])


def test_the_api_starts_after_a_healthy_worker_and_database(compose: dict[str, Any]) -> None:
    depends = compose["services"]["api"]["depends_on"]

    assert depends["postgres"]["condition"] == "service_healthy"
    assert depends["worker"]["condition"] == "service_healthy"


def test_every_secret_is_a_mounted_file_read_through_a_file_variable(
    compose: dict[str, Any],
) -> None:
    secrets = compose["secrets"]
    assert set(secrets) == {"db_password", "signing_key", "hmac_key"}
    for name, secret in secrets.items():
        assert set(secret) == {"file"}, f"secret {name} is not a file"
        assert secret["file"].startswith("./secrets/")

    for name in ("api", "worker"):
        service = compose["services"][name]
        environment = _environment(service)
        assert set(service["secrets"]) == set(secrets)
        assert environment["PROVLEDGER_DATABASE_PASSWORD_FILE"] == "/run/secrets/db_password"
        assert environment["PROVLEDGER_SIGNING_KEY_FILE"] == "/run/secrets/signing_key"
        assert environment["PROVLEDGER_HMAC_KEY_FILE"] == "/run/secrets/hmac_key"
        url = environment["PROVLEDGER_DATABASE_URL"]
        assert re.match(r"postgresql://[^:@/]+@", url), f"{name}: a password in the URL"
    postgres = _environment(compose["services"]["postgres"])
    assert postgres["POSTGRES_PASSWORD_FILE"] == "/run/secrets/db_password"


def test_no_secret_is_written_inline_in_any_service(compose: dict[str, Any]) -> None:
    for name, service in compose["services"].items():
        for key, value in _environment(service).items():
            if not SECRET_NAME.search(key) or key.endswith("_FILE"):
                continue
            # Only an interpolation of the operator's environment is allowed, never a value.
            assert value == "" or re.fullmatch(r"\$\{[A-Z_]+:?-?\}", value), (
                f"{name}: {key} holds a value inline"
            )


def test_the_env_example_names_every_variable_the_compose_file_interpolates() -> None:
    text = COMPOSE.read_text()
    example = (ROOT / "docker" / ".env.example").read_text()
    used = set(re.findall(r"\$\{([A-Z_]+)", text))
    defined = set(re.findall(r"^([A-Z_]+)=", example, re.MULTILINE))

    assert used <= defined, f"not in .env.example: {sorted(used - defined)}"
    assert not re.search(r"PASSWORD=.+|SECRET=.+", example)


def test_the_base_image_is_pinned_by_digest() -> None:
    dockerfile = (ROOT / "docker" / "Dockerfile").read_text()

    images = re.findall(r"^ARG PYTHON_IMAGE=(\S+)$", dockerfile, re.MULTILINE)
    assert len(images) == 1
    assert re.fullmatch(r"python:3\.11-slim@sha256:[0-9a-f]{64}", images[0])
    froms = re.findall(r"^FROM (\S+)", dockerfile, re.MULTILINE)
    assert froms == ["${PYTHON_IMAGE}", "${PYTHON_IMAGE}"]


def test_the_image_carries_the_compiled_gate() -> None:
    """The build stage has a C compiler and setup.py; the image refuses to build without the
    compiled gate rather than ship the slower one unnoticed."""
    dockerfile = (ROOT / "docker" / "Dockerfile").read_text()
    build, run = dockerfile.split("\nFROM ${PYTHON_IMAGE}\n")
    assert "gcc" in build
    assert "setup.py" in build
    assert "gcc" not in run
    assert "ledger.gate.COMPILED" in run
