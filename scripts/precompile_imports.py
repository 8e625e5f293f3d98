"""Image build step: compile to bytecode only the modules a run imports.

A run imports about a fifth of the dependencies' modules (the agent runner, the judge
client, the metrics' libraries); precompiling just those keeps the image smaller and the
build shorter, while a run still finds them compiled (the image forbids writing bytecode at
run time). A module a user's agent imports beyond these compiles when imported.

    /opt/agenteval/bin/python scripts/precompile_imports.py /opt/agenteval

The .pyc files are "unchecked-hash": valid whatever timestamps copying the sources between
build stages gives them.
"""

from __future__ import annotations

import importlib
import py_compile
import sys

sys.dont_write_bytecode = True  # written below, once, in the unchecked-hash form

RUN_IMPORTS = (
    "google.adk.agents", "google.adk.apps", "google.adk.artifacts", "google.adk.features", "google.adk.memory",
    "google.adk.evaluation.eval_case", "google.adk.evaluation.eval_metrics", "google.adk.plugins", "google.adk.runners",
    "google.adk.sessions", "google.adk.tools",
    "google.auth", "google.oauth2", "google.genai", "google.genai.errors", "google.genai.types",
    "httpx", "jinja2", "pydantic", "requests", "rouge_score.rouge_scorer", "yaml",
)


def main(prefix: str) -> None:
    for name in RUN_IMPORTS:
        importlib.import_module(name)
    sources = sorted({m.__file__ for m in list(sys.modules.values())
                      if isinstance(getattr(m, "__file__", None), str) and m.__file__.startswith(prefix) and m.__file__.endswith(".py")})
    for source in sources:
        py_compile.compile(source, doraise=True, invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
    print(f"precompiled {len(sources)} modules under {prefix}")


if __name__ == "__main__":
    main(sys.argv[1])
