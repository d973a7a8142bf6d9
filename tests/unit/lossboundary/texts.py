"""Evidence written for these tests, outside the dev data: a billing policy (seed 003's
disputed charge), a service contract and a medicines leaflet, each with a faithful
compression that drops only what its boundary lets it drop."""

from __future__ import annotations

from ledger.lossboundary import InputText

POLICY = [
    InputText(
        "sp_policy_recommend",
        "Advisers may recommend reversing a disputed service charge of up to $250 when the "
        "charge was posted after 1 March 2024.",
    ),
    InputText(
        "sp_policy_dispute",
        "Customers under an active dispute are excluded.",
    ),
    InputText(
        "sp_policy_appeal",
        "Charges already under formal appeal are not eligible for the waiver.",
    ),
    InputText(
        "sp_policy_procedure",
        "To apply the waiver, open the billing console, select the charge and choose Waive. "
        "Record the case reference in the notes field.",
    ),
    InputText(
        "sp_policy_example",
        "For example, a customer charged $40 twice for one visit would get $40 back.",
    ),
]
POLICY_SUMMARY = (
    "Advisers may recommend reversing a disputed service charge of up to $250 when the "
    "charge was posted after 1 March 2024. Customers under an active dispute are excluded, "
    "and charges already under formal appeal are not eligible for the waiver."
)
POLICY_SUMMARY_WITHOUT_THE_EXCLUSION = (
    "Advisers may recommend reversing a disputed service charge of up to $250 when the "
    "charge was posted after 1 March 2024. Charges already under formal appeal are not "
    "eligible for the waiver."
)

CONTRACT = [
    InputText(
        "sp_contract_credits",
        "The Supplier shall pay service credits of 5% of the monthly fee for each full hour of "
        "downtime beyond the 99.9% availability target.",
    ),
    InputText("sp_contract_cap", "Service credits are capped at 30% of the monthly fee."),
    InputText(
        "sp_contract_maintenance",
        "Credits do not apply to downtime caused by scheduled maintenance announced at least "
        "48 hours in advance.",
    ),
    InputText(
        "sp_contract_example",
        "For example, four hours of unplanned downtime in a month earn a credit of 20% of "
        "that month's fee.",
    ),
    InputText(
        "sp_contract_termination",
        "Either party may terminate this Agreement on 90 days' written notice, provided that "
        "no invoice is overdue.",
    ),
    InputText(
        "sp_contract_notices",
        "Notices are sent by email to the addresses in Schedule 2 and are deemed received on "
        "the next working day.",
    ),
]
CONTRACT_SUMMARY = (
    "Supplier shall pay service credits of 5% of the monthly fee per full hour of downtime "
    "beyond the 99.9% availability target; credits capped at 30% of the monthly fee. Credits "
    "do not apply to downtime caused by scheduled maintenance announced at least 48 hours in "
    "advance. Either party may terminate this Agreement on 90 days' written notice, provided "
    "that no invoice is overdue."
)

LEAFLET = [
    InputText(
        "sp_leaflet_dose",
        "Adults may take 500 mg of paracetamol every 4 to 6 hours, up to 4 g in 24 hours.",
    ),
    InputText("sp_leaflet_tablets", "Do not take more than 8 tablets in 24 hours."),
    InputText(
        "sp_leaflet_liver",
        "Patients with liver impairment should not take more than 2 g a day unless a "
        "physician advises otherwise.",
    ),
    InputText(
        "sp_leaflet_evidence",
        "The evidence of benefit in chronic low back pain is uncertain.",
    ),
    InputText(
        "sp_leaflet_panel",
        "A minority of the panel argued that the 2 g limit is too cautious.",
    ),
    InputText("sp_leaflet_water", "Swallow the tablets whole with a glass of water."),
]
LEAFLET_SUMMARY = (
    "Adults may take 500 mg of paracetamol every 4 to 6 hours, up to 4 g in 24 hours, and "
    "must not take more than 8 tablets in 24 hours. Patients with liver impairment should not "
    "take more than 2 g a day unless a physician advises otherwise. The evidence of benefit in "
    "chronic low back pain is uncertain. A minority of the panel argued that the 2 g limit is "
    "too cautious."
)
