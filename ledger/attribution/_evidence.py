"""Which span of a pool a sentence's words point at, and how sure that pointer is.

The model is the binary-independence one behind Robertson and Sparck Jones's idf. A cited
sentence was written from one span of the pool, every span equally likely beforehand. A span
that holds term ``t`` of the sentence is ``N / df(t)`` times likelier to be that source than a
span drawn at random, where ``N`` is the number of distinct spans in the pool and ``df(t)`` how
many of them hold ``t``. Taking terms as independent, the log odds for span ``s`` are::

    evidence(s)  = sum over t in terms(sentence) & terms(s) of ln(N / df(t))
    posterior(s) = exp(evidence(s)) / sum over distinct spans d of exp(evidence(d))

A term held by every span weighs nothing and a pool of one span is certain. A term the span
lacks is not held against it: sentences paraphrase and add words their source lacks, and the
share of the sentence a span covers is judged separately, as ``recall``. Spans with the same
terms count as one candidate: a paragraph printed twice is the same evidence, not two rival
sources. Terms are those of :func:`ledger.attribution._words.term_set`, text and envelope.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from ledger.attribution._words import term_set
from ledger.attribution.ranker import Candidate


@dataclass(frozen=True, slots=True)
class Weighed:
    """The span the evidence points at, the share of the sentence's terms it holds, and the
    posterior probability that it is the source among the pool's distinct spans."""

    span_id: str
    recall: float
    posterior: float


class EvidencePool:
    """The spans of the chunks one sentence cites, with their terms and document frequencies.

    Built once per set of cited chunks, so each sentence costs one pass over the distinct spans.
    A span id that recurs keeps its first place; order breaks ties between duplicates.
    """

    def __init__(self, spans: Iterable[Candidate]) -> None:
        self._spans: list[tuple[str, frozenset[str]]] = []
        seen: set[str] = set()
        for span in spans:
            if span.span_id in seen:
                continue
            seen.add(span.span_id)
            have = term_set(span.text)
            if span.envelope:
                have = have | term_set(span.envelope)
            self._spans.append((span.span_id, have))
        self._distinct = list(dict.fromkeys(have for _, have in self._spans))
        self._df: Counter[str] = Counter(term for have in self._distinct for term in have)

    def best(self, wanted: frozenset[str]) -> Weighed | None:
        """The span with the most evidence for a sentence with terms ``wanted``.

        Ties go to the larger recall, then to the earlier span. ``None`` when ``wanted`` is
        empty or the pool holds no span.
        """
        if not wanted or not self._spans:
            return None
        size = len(self._distinct)
        weight = {t: math.log(size / self._df[t]) for t in wanted if self._df[t]}
        # Per distinct span: (evidence, matched terms). fsum rounds once, so the order in which
        # a set yields its terms cannot split a tie between spans that hold the same ones.
        scored: dict[frozenset[str], tuple[float, int]] = {}
        for have in self._distinct:
            shared = wanted & have
            scored[have] = (math.fsum(weight[t] for t in shared), len(shared))
        spans = self._spans
        index = max(range(len(spans)), key=lambda i: (*scored[spans[i][1]], -i))
        span_id, have = spans[index]
        top, matched = scored[have]
        posterior = 1.0 / math.fsum(math.exp(value - top) for value, _ in scored.values())
        return Weighed(span_id, matched / len(wanted), posterior)
