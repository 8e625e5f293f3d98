"""Where agenteval's files are unless told otherwise, and the most runs a case may get: what the
CLI, the readers and the reports share with agenteval.yaml's models (schema/project.py) without
loading those models, which a `score` never reads (~10 ms of its start)."""

from __future__ import annotations

DEFAULT_PROJECT_FILE = "agenteval.yaml"
DEFAULT_BASELINE = ".agenteval/baseline.json"
DEFAULT_RESULTS = ".agenteval/results.json"  # what `run` writes and `accept` reads when given no path
MAX_NUM_RUNS = 100  # maxima documented in docs/config.md
