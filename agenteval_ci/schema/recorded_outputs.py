"""The recorded outputs beside a baseline (`baseline.outputs.jsonl.gz`; docs/baseline.md):
what the agent did in the runs a baseline's scores came from, so a changed judge can judge
them again (docs/judge.md, "A changed judge"), and `rejudge` can score them with new criteria.

Gzipped JSON lines: a header, then one case a line, each named by the digest of its runs,
which the baseline's cases (and a metric accepted from other runs) point to.
"""

from __future__ import annotations

from typing import Literal

from ._base import StrictModel
from .eval_set import EvalCase
from .results import RunRecord

OUTPUTS_VERSION = 1


class OutputsHeader(StrictModel):
    kind: Literal["agenteval-baseline-outputs"] = "agenteval-baseline-outputs"
    schema_version: int = OUTPUTS_VERSION


class RecordedCase(StrictModel):
    digest: str  # first on its line: a reader looking for some digests parses only their lines
    suite: str
    eval_set_id: str
    eval_id: str
    fingerprint: str  # of the eval case, as in the results
    eval_case: EvalCase
    runs: list[RunRecord]
