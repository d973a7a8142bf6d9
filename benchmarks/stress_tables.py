"""Statistical tables the gate was never tuned on, and computed claims over their cells.

The tables are the data sets Debian's ``python3-vega-datasets`` ships (barley yields by
variety and site, Iowa's electricity by source, wages and the price of wheat, deaths in the
Crimean War by cause, US employment by sector, stock prices): each becomes a table with one
line per series and one column per period, rendered into cells and envelopes exactly as the
ledger renders a source's tables (:func:`ledger.text.tables.render_tables`).

For each line and each two neighbouring periods, a claim of the change and one of the
percentage change cite the two cells (``table_change``: reported), each also perturbed as
the TAT-QA evaluation perturbs its answers: the sign flipped, ten times the figure, 3% more,
the figure claimed of another line (``line_swap``) or of the two periods before
(``period_swap``), citing the same cells (``table_<kind>``: at most 1% verified). Skipped
where the package is absent.
"""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

from benchmarks.eval_cases import Case
from ledger.gate import Binding, ClaimDraft, ClaimType, SpanFacts
from ledger.gate.lexicon.words import content_stems
from ledger.text.tables import parse_tables, render_tables

VEGA = Path("/usr/lib/python3/dist-packages/vega_datasets/_data")
PAIRS = 12
"""The most neighbouring periods of one line a claim is made of."""

Series = dict[str, dict[str, float]]
"""Each line's figure by period."""


def _csv(name: str) -> list[dict[str, str]]:
    with (VEGA / name).open(newline="") as handle:
        return list(csv.DictReader(handle))


def _json(name: str) -> list[dict[str, object]]:
    return json.loads((VEGA / name).read_text())  # type: ignore[no-any-return]


def _tables() -> Iterator[tuple[str, Series]]:
    """Each table's title and lines."""
    iowa: Series = defaultdict(dict)
    for row in _csv("iowa-electricity.csv"):
        iowa[row["source"]][row["year"][:4]] = float(row["net_generation"])
    yield "Net generation of electricity in Iowa by source", iowa
    barley: dict[str, Series] = defaultdict(lambda: defaultdict(dict))
    for item in _json("barley.json"):
        barley[str(item["site"])][str(item["variety"])][str(item["year"])] = float(item["yield"])  # type: ignore[arg-type]
    for site, lines in sorted(barley.items()):
        yield f"Barley yield by variety at {site}", lines
    wheat: Series = defaultdict(dict)
    for item in _json("wheat.json"):
        for line in ("wheat", "wages"):
            if item.get(line) is not None:
                wheat[f"Price of {line}" if line == "wheat" else "Weekly wages"][
                    str(item["year"])
                ] = float(item[line])  # type: ignore[arg-type]
    yield "Wheat prices and wages in England", wheat
    crimea: Series = defaultdict(dict)
    for item in _json("crimea.json"):
        for cause, line in (
            ("wounds", "Wounds"),
            ("disease", "Disease"),
            ("other", "Other causes"),
        ):
            crimea[line][str(item["date"])[:7]] = float(item[cause])  # type: ignore[arg-type]
    yield "Deaths in the army in the East by cause", crimea
    employment: Series = defaultdict(dict)
    for row in _csv("us-employment.csv"):
        if row["month"][5:7] == "01":
            for sector, value in row.items():
                if sector not in ("month", "nonfarm_change") and value:
                    employment[sector.replace("_", " ").capitalize()][row["month"][:4]] = float(
                        value
                    )
    yield "Employment in the United States by sector, in January", employment
    stocks: Series = defaultdict(dict)
    for row in _csv("stocks.csv"):
        if row["date"].startswith("Jan "):
            stocks[row["symbol"]][row["date"][-4:]] = float(row["price"])
    yield "Stock prices in January", stocks


def _decimals(values: list[float]) -> int:
    return max((len(repr(v).split(".")[1]) if not repr(v).endswith(".0") else 0) for v in values)


def _text(value: float, decimals: int) -> str:
    return f"{value:,.{decimals}f}"


def _cells(title: str, lines: Series) -> dict[tuple[str, str], SpanFacts]:
    """The value cells of one table, by (line, period), as the ledger renders them."""
    periods = sorted({p for series in lines.values() for p in series})
    decimals = _decimals([v for series in lines.values() for v in series.values()])
    rows = [
        [line, *(_text(s[p], decimals) if p in s else "" for p in periods)]
        for line, s in lines.items()
    ]
    (table,) = parse_tables(
        [{"table_id": "t", "title": title, "columns": ["", *periods], "rows": rows}]
    )
    _, placements = render_tables([table], 0)
    out: dict[tuple[str, str], SpanFacts] = {}
    for place in placements:
        if place.col == 0:
            continue
        line, period = table.rows[place.row][0], periods[place.col - 1]
        value = table.rows[place.row][place.col]
        out[line, period] = SpanFacts(
            f"t{place.row}.{place.col}", True, True, True, False, value, place.envelope
        )
    return out


def _claim(text: str, cited: list[SpanFacts]) -> ClaimDraft:
    bindings = tuple(Binding(facts.span_id) for facts in cited)
    return ClaimDraft(text, type=ClaimType.COMPUTATIONAL, bindings=bindings)


@dataclass(frozen=True)
class _Said:
    """A claim's sentence: its template with a line, two periods and a figure filled in."""

    template: str
    line: str
    old: str
    new: str
    places: int

    def __call__(self, figure: float, **other: object) -> str:
        fields = {**asdict(self), **other}
        text = _text(figure, int(str(fields.pop("places"))))
        return str(fields.pop("template")).format(figure=text, **fields)


def table_cases() -> list[Case]:
    """The claims of every table, correct and perturbed (none where the package is absent)."""
    if not VEGA.is_dir():
        return []
    out: list[Case] = []
    for title, lines in _tables():
        cells = _cells(title, lines)
        names = list(lines)
        for n, (line, series) in enumerate(lines.items()):
            periods = sorted(series)
            decimals = _decimals(list(series.values()))
            # Another line that shares no word with this one (as the TAT-QA line swap).
            other = next(
                (
                    o
                    for o in names[n + 1 :] + names[:n]
                    if not content_stems(o) & content_stems(line)
                ),
                None,
            )
            for k in range(1, min(len(periods), PAIRS + 1)):
                old, new = periods[k - 1], periods[k]
                cited = [cells[line, new], cells[line, old]]
                spans = {facts.span_id: facts for facts in cited}
                before = periods[k - 2] if k >= 2 else None
                change = series[new] - series[old]
                claims = [
                    (change, "The change in {line} from {old} to {new} is {figure}.", decimals)
                ]
                if series[old]:
                    pct = change / abs(series[old]) * 100
                    claims.append(
                        (
                            pct,
                            "The percentage change in {line} from {old} to {new} is {figure}%.",
                            1,
                        )
                    )
                for value, template, places in claims:
                    said = _Said(template, line, old, new, places)
                    variants = [("table_change", said(value))]
                    if round(value, places):
                        variants += [
                            ("table_sign_flip", said(-value)),
                            ("table_x10", said(value * 10)),
                        ]
                    variants.append(("table_plus3pct", said(value * 1.03, places=places + 2)))
                    if other is not None:
                        variants.append(("table_line_swap", said(value, line=other)))
                    if before is not None:
                        variants.append(("table_period_swap", said(value, old=before, new=old)))
                    out += [Case(kind, _claim(text, cited), spans) for kind, text in variants]
    return out
