"""Evaluation of the commit gate on real citation data (WiCE dev, TAT-QA dev, SummEdits).

Usage: python -m benchmarks.gate_eval [--data DIR] [--thresholds] [--detail] [--show CATEGORY,...]

Reads ``../shared/data`` relative to the repository (or ``PROVLEDGER_SHARED_DATA``) and exits
with status 2 when it is missing. Categories, each a list of (claim, span facts):

1. ``verbatim``: sentences of WiCE gold evidence and TAT-QA paragraphs (five words or more)
   quoted whole or in part by a claim that repeats the sentence -> must be verified (100%);
2. ``summedits_negation``, ``summedits_antonym``: the summary sentence a negation or antonym
   edit changed, bound to the document sentence that best matches the original sentence, and
   ``tatqa_sign_flip``, ``tatqa_x10``, ``tatqa_plus3pct``: perturbed arithmetic answers citing
   their gold cells, and ``tatqa_line_swap``, ``tatqa_period_swap``: the correct answer to the
   question with a cited row label swapped for another row's, or with its years one earlier,
   citing the same cells -> must never be verified (target 0%, at most 1%);
3. ``tatqa_arithmetic``: arithmetic answers turned into claims citing their gold cells and
   sentences (reported); ``tatqa_named``: those whose gold answer is what its derivation gives
   and whose words name their cited cells (:func:`benchmarks.tatqa_cases.gold_agrees`,
   :func:`benchmarks.tatqa_cases.words_name_cells`) -> at least 85% verified;
4. ``wice_supported``: supported claims citing their first gold sentence set (reported);
5. ``wice_not_supported``: not-supported claims citing the article's best BM25 sentence
   -> at most 10% verified.

Also reported: the unedited summary sentences (``summedits_original``), as a control, and for
each data set of claims annotated as true (WiCE supported, SummEdits unedited, seed
consistent, TAT-QA gold) the share ``rejected``, for polarity reasons (a negation, hedge,
opposite or direction: target at most 2%) and for any reason, with the reasons.

The stricter cases (see ``docs/gate.md``, "Evaluation figures"):

6. ``seed_negation``, ``seed_antonym``, ``seed_swap``, ``seed_other``: each inconsistent
   SummEdits summary judged against the sentences of the original (seed) summary it was
   edited from, by edit kind (negation inserted or removed; antonym swap; entity, number or
   period swapped; another edit such as an inserted fact) -> at most 1% verified;
   ``seed_consistent``: the consistent rewrites, judged the same way (coverage, reported);
7. ``mutant_<kind>``: every verbatim sentence with one edit of each kind that applies
   (:mod:`benchmarks.gate_mutations` and :mod:`benchmarks.gate_mutations_framing`: negation,
   antonym, number, ordinal, quarter, scale, period, gender, plan, condition, direction,
   conjunction, embedded, bound, relation, again, part, level, frequency, exception, recency,
   cause, obligation, rank, former, position, scope, deadline, quantifier; and of
   :mod:`benchmarks.gate_mutations_figures`: forecast, year_part, measure)
   citing the sentence -> at most 1% verified;
8. ``wice_negated``: supported WiCE claims with a negation inserted, citing their gold
   sentences -> at most 1% verified.

Every case carries the half of its document (:func:`benchmarks.eval_cases.half_of`: the WiCE
article, the SummEdits document, the TAT-QA table) and the report gives each category's
verified share on both halves side by side. SummEdits items of its ``test`` split are never
read.

The cases of each data set are built by :mod:`benchmarks.wice_cases`,
:mod:`benchmarks.summedits_cases` and :mod:`benchmarks.tatqa_cases`.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from benchmarks.eval_cases import (
    HALVES,
    Case,
    data_dir,
    half_of,
    make_case,
    sentences_of,
    span,
)
from benchmarks.gate_mutations import MUTATIONS
from benchmarks.summedits_cases import seed_cases, summedits_cases
from benchmarks.tatqa_cases import QUESTION_FORM, tatqa, tatqa_cases
from benchmarks.wice_cases import wice_cases, wice_document, wice_rows
from ledger.gate import (
    HARD_CHECKS,
    Binding,
    ClaimDraft,
    GateConfig,
    Outcome,
    Status,
    Verdict,
    judge,
)

MUST_VERIFY = ("verbatim",)
MUST_NOT_VERIFY = (
    "summedits_negation",
    "summedits_antonym",
    "seed_negation",
    "seed_antonym",
    "seed_swap",
    "seed_other",
    *(f"mutant_{kind}" for kind in MUTATIONS),
    "wice_negated",
    *(
        f"tatqa_{kind}{form}"
        for kind in ("sign_flip", "x10", "plus3pct", "line_swap", "period_swap")
        for form in ("", QUESTION_FORM)
    ),
)
REPORTED = ("wice_supported", "seed_consistent", "summedits_original")
TRUE_CLAIMS = {
    "wice_supported": "WiCE supported",
    "summedits_original": "SummEdits unedited",
    "seed_consistent": "seed consistent",
    "tatqa_arithmetic": "TAT-QA gold",
    "tatqa_arithmetic" + QUESTION_FORM: "TAT-QA gold, question form",
}
"""The categories of claims annotated as true (supported, consistent, the gold answer): a
``rejected`` verdict on one says the citation contradicts a true claim."""


# -- verbatim sentences and their edits ------------------------------------------------------


def verbatim_sentences(root: Path) -> Iterator[tuple[str, str]]:
    """Each sentence of WiCE gold evidence and TAT-QA paragraphs (five words or more) once,
    with the half of its document."""
    texts: list[tuple[str, str]] = []
    for row in wice_rows(root):
        evidence = row["evidence"]
        half = half_of(wice_document(row))
        for group in row["supporting_sentences"]:  # type: ignore[attr-defined]
            texts += [(str(evidence[i]), half) for i in group]  # type: ignore[index]
    for context in tatqa(root):
        half = half_of(str(context["table"]["uid"]))  # type: ignore[index]
        for paragraph in context["paragraphs"]:  # type: ignore[attr-defined]
            texts += [(t, half) for t in sentences_of(paragraph["text"])]
    seen: set[str] = set()
    for text, half in texts:
        if len(text.split()) >= 5 and text not in seen:
            seen.add(text)
            yield text, half


def verbatim_cases(root: Path, limit: int | None = None) -> Iterator[Case]:
    """Sentences of WiCE gold evidence and TAT-QA paragraphs quoted by a claim repeating them."""
    for n, (text, half) in enumerate(verbatim_sentences(root)):
        if limit is not None and n >= limit:
            return
        words = text.split()
        quote = text if n % 2 else " ".join(words[len(words) // 4 : max(len(words) * 3 // 4, 3)])
        facts = span("s0", text)
        claim = ClaimDraft(text.strip(), bindings=(Binding("s0", quote=quote),))
        yield Case("verbatim", claim, {"s0": facts}, half)


def mutant_cases(root: Path, limit: int | None = None) -> Iterator[Case]:
    """Every verbatim sentence with one edit of each kind that applies, citing the sentence."""
    for n, (text, half) in enumerate(verbatim_sentences(root)):
        if limit is not None and n >= limit:
            return
        for kind, mutate in MUTATIONS.items():
            edited = mutate(text.strip())
            if edited is not None and edited != text.strip():
                yield replace(make_case(f"mutant_{kind}", edited, [text]), half=half)


def all_cases(root: Path) -> list[Case]:
    """Every evaluation case, in a fixed order."""
    cases = list(verbatim_cases(root))
    cases += mutant_cases(root)
    cases += summedits_cases(root)
    cases += seed_cases(root)
    cases += tatqa_cases(root)
    cases += wice_cases(root)
    return cases


def _target(category: str) -> str:
    if category in MUST_VERIFY:
        return "100%"
    if category in MUST_NOT_VERIFY:
        return "<= 1%"
    if category in ("tatqa_named", "tatqa_named" + QUESTION_FORM):
        return ">= 85%"
    if category == "wice_not_supported":
        return "<= 10%"
    return "reported"


# -- report ----------------------------------------------------------------------------------


def _rejected_by(verdict: Verdict) -> list[str]:
    """What rejected a claim: ``polarity`` when the polarity check failed (a negation, hedge,
    opposite or direction), and each failed hard check as ``check reason``."""
    failed = [r for r in verdict.checks if r.outcome is Outcome.FAIL and r.check in HARD_CHECKS]
    out = [f"{r.check} {r.reason}" for r in failed]
    if any(r.check == "polarity" for r in failed):
        out.append("polarity")
    return out


def _print_rejections(
    statuses: dict[tuple[str, str], Counter[Status]],
    rejections: dict[tuple[str, str], Counter[str]],
) -> None:
    """The true claims of each data set rejected: for polarity reasons (target at most 2%)
    and for any reason, with the reasons."""
    print("\ntrue claims rejected, tuning | check half (polarity target: at most 2%)")
    print(f"  {'data set':28} {'n':>9} {'polarity':>17} {'any reason':>17}  reasons")
    for category, name in TRUE_CLAIMS.items():
        ns = [sum(statuses[category, h].values()) for h in HALVES]
        polarity = [rejections[category, h]["polarity"] for h in HALVES]
        rejected = [statuses[category, h][Status.REJECTED] for h in HALVES]
        reasons: Counter[str] = Counter()
        for h in HALVES:
            reasons.update(rejections[category, h])
        del reasons["polarity"]
        listed = ", ".join(f"{reason} {n}" for reason, n in reasons.most_common())
        print(
            f"  {name:28} {ns[0]:4d} | {ns[1]:3d} {_pct(polarity[0], ns[0])} | "
            f"{_pct(polarity[1], ns[1])} {_pct(rejected[0], ns[0])} | {_pct(rejected[1], ns[1])}"
            f"  {listed or '-'}"
        )


def _pct(count: int, n: int) -> str:
    return f"{count / n * 100:6.1f}%" if n else "     -"


def _show(case: Case, verdict: Verdict) -> None:
    """Print a case that went the wrong way: a must-not-verify case verified, any other not."""
    wrong = (case.category in MUST_NOT_VERIFY) == (verdict.status is Status.VERIFIED)
    if not wrong:
        return
    print(f"--- {case.category} [{case.half}]: {verdict.status.value}")
    print(f"    claim: {case.claim.text}")
    for binding in case.claim.bindings:
        facts = case.spans.get(binding.span_id)
        if facts is not None:
            print(f"    span:  {facts.evidence_text}")
    for result in verdict.checks:
        if result.outcome is not Outcome.PASS and result.reason != "not_computational":
            print(f"    {result.check} {result.reason}: {result.detail[:300]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--data", default=None)
    parser.add_argument("--thresholds", action="store_true", help="verified share by threshold")
    parser.add_argument("--detail", action="store_true", help="outcome/reason counts per check")
    parser.add_argument(
        "--show",
        default="",
        help="categories whose cases to print when they go the wrong way (a true claim not "
        "verified, an edited one verified), with the checks that did not pass",
    )
    args = parser.parse_args()
    root = data_dir(args.data)
    if root is None:
        print("shared data not found (../shared/data or PROVLEDGER_SHARED_DATA)", file=sys.stderr)
        return 2
    cases = all_cases(root)
    unbuilt = sum(1 for c in cases if c.category == "tatqa_unbuilt")
    cases = [c for c in cases if c.category != "tatqa_unbuilt"]
    config = GateConfig()
    statuses: dict[tuple[str, str], Counter[Status]] = defaultdict(Counter)
    per_check: dict[str, Counter[tuple[str, str, str]]] = defaultdict(Counter)
    rejections: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    show = set(filter(None, args.show.split(",")))
    for case in cases:
        verdict = judge(case.claim, case.spans, config)
        statuses[case.category, case.half or "tune"][verdict.status] += 1
        if case.category in show:
            _show(case, verdict)
        for result in verdict.checks:
            per_check[case.category][(result.check, result.outcome.value, result.reason)] += 1
        if case.category in TRUE_CLAIMS and verdict.status is Status.REJECTED:
            rejections[case.category, case.half or "tune"].update(_rejected_by(verdict))
    categories = list(dict.fromkeys(c.category for c in cases))
    print(f"support_threshold={config.support_threshold}; TAT-QA questions not built: {unbuilt}")
    print(
        f"\n{'category':22} {'tune n':>7} {'verified':>9} {'rejected':>9}"
        f" {'check n':>8} {'verified':>9} {'rejected':>9}  target"
    )
    for category in categories:
        row = f"{category:22}"
        for half in HALVES:
            counts = statuses[category, half]
            n = sum(counts.values())
            verified = counts[Status.VERIFIED] / n * 100 if n else 0.0
            rejected = counts[Status.REJECTED] / n * 100 if n else 0.0
            row += f" {n:{7 if half == 'tune' else 8}d} {verified:8.1f}% {rejected:8.1f}%"
        print(f"{row}  {_target(category)}")
    _print_rejections(statuses, rejections)
    if args.detail:
        print("\nper check: outcome/reason counts by category")
        for category, check_counts in per_check.items():
            print(f"\n[{category}]")
            for (check, outcome, reason), n in sorted(check_counts.items()):
                print(f"  {check:12} {outcome:5} {reason:22} {n:5d}")
    if args.thresholds:
        print("\nverified share by support threshold")
        for threshold in (0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0):
            tuned = replace(config, support_threshold=threshold)
            shares = []
            for category in categories:
                subset = [c for c in cases if c.category == category]
                hits = sum(judge(c.claim, c.spans, tuned).status is Status.VERIFIED for c in subset)
                shares.append(f"{category}={hits / len(subset) * 100:.1f}%")
            print(f"  {threshold:.2f}: " + " ".join(shares))
    return 0


if __name__ == "__main__":
    sys.exit(main())
