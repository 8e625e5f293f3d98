"""One module per CLI command, each with `configure(parser)` and `run(args) -> int`.

A command's module is imported only when that command runs, so `agenteval validate`
or `score` does not pay for importing google-adk or google-genai.
"""

from __future__ import annotations

import importlib
from types import ModuleType

# name -> one-line help, in the order `agenteval --help` lists them
COMMANDS = {
    "init": "set up a project: agenteval.yaml, the GitHub workflows, a first run and its baseline",
    "run": "run the agent on its eval sets, score it and write the results file",
    "score": "score recorded agent outputs against an eval set (no agent is run)",
    "compare": "compare a results file with the baseline; exit 0 passed, 1 failed, 2 bad input",
    "accept": "write the baseline from a results file, whole or only the named cases/metrics",
    "report": "render a results file (compared with the baseline) as markdown, job summary, HTML, JUnit XML or JSON",
    "merge": "join the results files of sharded runs (--shard I/N) into one",
    "validate": "check eval sets and eval configs, printing every problem with file and JSON path",
    "convert": "turn legacy .test.json files (and their initial session) into EvalSet files",
}


def load(name: str) -> ModuleType:
    return importlib.import_module(f"{__name__}.{name}")
