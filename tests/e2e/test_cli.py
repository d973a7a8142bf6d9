"""The command line: keys, signing-key rotation and verify, on both backends."""

from __future__ import annotations

import json

from click.testing import CliRunner

from api.cli import main
from api.services import open_ledger
from api.settings import Settings
from tests.tamper import Tamperer


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def test_keys_create_prints_the_secret_last_and_stores_only_its_hash(
    settings_env: Settings,
) -> None:
    code, output = _run("keys", "create", "--name", "app", "--scopes", "read,ingest")

    assert code == 0, output
    secret = output.strip().splitlines()[-1]
    assert secret.startswith("plk.app.")
    runtime = open_ledger(settings_env)
    try:
        principal = runtime.api_keys.authenticate(secret)
        states = b"".join(n.state for n in runtime.ledger.read_log(0, 100))
    finally:
        runtime.close()
    assert principal is not None
    assert principal.scopes == {"read", "ingest"}
    assert secret.encode() not in states


def test_keys_revoke_and_list(settings_env: Settings) -> None:
    _run("keys", "create", "--name", "app", "--scopes", "read")
    code, output = _run("keys", "revoke", "app", "--reason", "leaked")
    assert code == 0, output

    code, output = _run("keys", "list")
    assert code == 0
    header, row = output.splitlines()
    assert header.split() == ["NAME", "STATUS", "SCOPES", "PINS", "ISSUED"]
    assert row.split()[:4] == ["app", "revoked", "read", "-"]
    assert header.index("STATUS") == row.index("revoked")  # the columns line up


def test_keys_list_json_gives_each_key_for_scripts(settings_env: Settings) -> None:
    _run("keys", "create", "--name", "app", "--scopes", "read,ingest")
    _run("keys", "create", "--name", "ops", "--scopes", "admin")
    _run("keys", "revoke", "ops")

    code, output = _run("keys", "list", "--json")

    assert code == 0, output
    listed = json.loads(output)
    assert [(k["name"], k["status"], k["scopes"]) for k in listed] == [
        ("app", "active", ["read", "ingest"]),
        ("ops", "revoked", ["admin"]),
    ]
    assert all(k["issued_at"].endswith("Z") for k in listed)


def test_keys_create_with_a_bad_scope_fails_clearly(settings_env: Settings) -> None:
    code, output = _run("keys", "create", "--name", "app", "--scopes", "read,root")
    assert code == 1
    assert "unknown scope 'root'" in output


def test_revoking_an_unknown_key_fails_clearly(settings_env: Settings) -> None:
    code, output = _run("keys", "revoke", "ghost")
    assert code == 1
    assert "no API key named 'ghost'" in output


def test_verify_passes_across_a_key_rotation(settings_env: Settings) -> None:
    _run("keys", "create", "--name", "one", "--scopes", "read")
    code, output = _run("signing-keys", "rotate")
    assert code == 0, output
    _run("keys", "create", "--name", "two", "--scopes", "read")

    code, output = _run("verify")

    assert code == 0, output
    assert output.startswith("OK: 2 events in 2 aggregates verified")
    assert output.count("(1)") == 2  # one event under each key
    code, listing = _run("signing-keys", "list")
    assert sorted(line.split("\t")[1] for line in listing.splitlines()) == ["active", "retired"]


def test_verify_names_the_first_bad_event_and_exits_1(settings_env: Settings) -> None:
    _run("keys", "create", "--name", "one", "--scopes", "read")
    _run("keys", "revoke", "one")
    runtime = open_ledger(settings_env)
    try:
        tamper = Tamperer(runtime)
        document = json.loads(tamper.state(2))
        document["body"]["actor"] = "someone-else"
        tamper.set_state(2, json.dumps(document).encode())
    finally:
        runtime.close()

    code, output = _run("verify")

    assert code == 1
    assert output.startswith("FAILED at notification 2: aggregate ")
    assert "version 2: bad_signature" in output


def test_verify_accepts_a_saved_public_key_listing(settings_env: Settings, tmp_path) -> None:  # type: ignore[no-untyped-def]
    _run("keys", "create", "--name", "one", "--scopes", "read")
    keyring = tmp_path / "trusted.json"
    keyring.write_text((settings_env.keys_dir / "keyring.json").read_text())

    code, output = _run("verify", "--keyring", str(keyring))

    assert code == 0, output


def test_keys_create_pins_principal_attributes_in_the_signed_event(
    settings_env: Settings,
) -> None:
    code, output = _run(
        "keys",
        "create",
        "--name",
        "support-app",
        "--scopes",
        "claims:write",
        "--pin",
        "groups=support",
        "--pin",
        "purposes=fraud-review,analyst-qa",
    )
    assert code == 0, output
    secret = output.strip().splitlines()[-1]
    runtime = open_ledger(settings_env)
    try:
        principal = runtime.api_keys.authenticate(secret)
        issued = json.loads(runtime.ledger.read_log(0, 100)[-1].state)
    finally:
        runtime.close()
    assert principal is not None
    assert principal.pins is not None
    assert principal.pins.groups == ("support",)
    assert issued["body"]["payload"]["pins"] == {
        "groups": ["support"],
        "purposes": ["analyst-qa", "fraud-review"],
    }
    code, output = _run("keys", "list")
    header, row = output.splitlines()
    pins = row.split()[header.split().index("PINS")]
    assert pins == "groups=support;purposes=analyst-qa,fraud-review"


def test_keys_create_refuses_an_unknown_pin_dimension(settings_env: Settings) -> None:
    code, output = _run(
        "keys", "create", "--name", "app", "--scopes", "read", "--pin", "teams=blue"
    )
    assert code == 1
    assert "pins.teams: unknown field 'teams'" in output
