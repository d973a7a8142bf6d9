"""The PROV-JSON export, converted by the ``prov`` package as a third party would, validates as
PROV-XML against the W3C schema (vendored in ``prov_xsd/``, see its README)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.e2e.flows import open_receipt, register

etree = pytest.importorskip("lxml.etree")

SCHEMA_DIR = Path(__file__).parent / "prov_xsd"
SCHEMA_DIGESTS = {
    "prov.xsd": "5f9dd5bc3e5832180240d638e197d0bffa411bf224d4291d3c21fd376bab6c71",
    "prov-core.xsd": "fa927d805af57d71491eff821b9ad6c0db6b4d0ac8a01692456bf041250fde1d",
    "prov-dictionary.xsd": "468b04ba5fc736a731ddefcc2ac208f20bfec0a2eb145bf14c58c4a811eca48d",
    "prov-links.xsd": "a998d5dce66f214fa28dc9579caaff05e7ae3d41f93f9ddc34c79ad460b360de",
    "xml.xsd": "61960fb3131e38022caad5360e2f33a3382578ab3c80cd58bd74320ede61b20c",
}
TEXT = (
    "Revenue rose 2.2% to $4.5 million in 2023. The board met twice in 2023."
    " Revenue rose 1.2% to $4.4 million in 2022."
)
CLAIM = "Revenue rose 2.2% to $4.5 million in 2023."


def _schema() -> Any:
    for name, digest in SCHEMA_DIGESTS.items():
        found = hashlib.sha256((SCHEMA_DIR / name).read_bytes()).hexdigest()
        assert found == digest, f"{name}: the vendored schema was changed"
    return etree.XMLSchema(etree.parse(str(SCHEMA_DIR / "prov.xsd")))


def _as_prov_xml(prov_json: str) -> Any:
    from prov.model import ProvDocument

    document = ProvDocument.deserialize(content=prov_json, format="json")
    return etree.fromstring(document.serialize(format="xml").encode("utf-8"))


@pytest.fixture
def history(client: TestClient, auth) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    """Every kind of record the export writes: versions and a supersession, a withdrawal, a
    verified claim, a rejected one and its repair, an expiry; odd characters in the ids."""
    headers = auth("admin", name="ops.team_1")
    spans = register(client, headers, "acme:report_2023.v-1", TEXT)
    register(client, headers, "gone", "The memo was retracted.")
    assert client.post(
        "/v1/sources/gone/withdraw", json={"reason": "retracted"}, headers=headers
    ).is_success
    pool = [span["span_id"] for span in spans]
    receipt = open_receipt(client, headers, pool, actor="user 7/é", policy_version="default")
    claims = [
        {"text": CLAIM, "bindings": [{"span_id": spans[0]["span_id"]}]},
        {"text": CLAIM, "bindings": [{"span_id": spans[2]["span_id"]}]},
    ]
    committed = client.post(
        f"/v1/receipts/{receipt}/claims",
        json={"claims": claims, "mode": "independent"},
        headers=headers,
    )
    assert committed.status_code == 201, committed.text
    body = committed.json()
    refused = (body["rejected"] or body["quarantined"])[0]["claim_id"]
    repaired = client.post(f"/v1/receipts/{receipt}/claims/{refused}/repair", headers=headers)
    assert repaired.status_code == 200, repaired.text
    assert client.post(
        "/v1/sources/acme:report_2023.v-1/versions",
        json={"text": TEXT + " Costs fell."},
        headers=headers,
    ).is_success
    client.app.state.services.expiry.run_once()  # type: ignore[attr-defined]
    return {"headers": headers, "receipt": receipt}


def test_the_vendored_schema_rejects_what_prov_xml_forbids() -> None:
    schema = _schema()
    bad = etree.fromstring(
        b'<prov:document xmlns:prov="http://www.w3.org/ns/prov#" xmlns:pl="urn:x">'
        b'<prov:entity prov:id="pl:agent/key:ops"/></prov:document>'
    )
    assert not schema.validate(bad)
    assert "QName" in str(schema.error_log)


@pytest.mark.parametrize("export", ["receipt", "source"])
def test_the_prov_export_validates_as_prov_xml_against_the_w3c_schema(
    client: TestClient, history: dict[str, Any], export: str
) -> None:
    path = {
        "receipt": f"/v1/receipts/{history['receipt']}/provenance",
        "source": "/v1/sources/acme:report_2023.v-1/provenance",
    }[export]
    response = client.get(path, headers=history["headers"])
    assert response.status_code == 200, response.text

    document = _as_prov_xml(response.text)
    schema = _schema()

    assert schema.validate(document), "\n".join(str(error) for error in schema.error_log)
    kinds = {etree.QName(child).localname for child in document}
    assert {"entity", "activity", "agent", "wasGeneratedBy", "used", "wasDerivedFrom"} <= kinds
    assert {"wasAttributedTo", "wasAssociatedWith", "wasInvalidatedBy"} <= kinds


def test_prov_types_are_qualified_names_in_the_pl_namespace(
    client: TestClient, history: dict[str, Any]
) -> None:
    from prov.identifier import QualifiedName
    from prov.model import PROV_TYPE, ProvDocument

    response = client.get(
        f"/v1/receipts/{history['receipt']}/provenance", headers=history["headers"]
    )
    document = ProvDocument.deserialize(content=response.text, format="json")

    types = [
        value
        for record in document.get_records()
        for name, value in record.attributes
        if name == PROV_TYPE
    ]
    assert types
    assert all(isinstance(value, QualifiedName) for value in types)
    assert {value.namespace.uri for value in types} == {"https://provledger.dev/ns/prov#"}
    assert "Claim" in {value.localpart for value in types}
