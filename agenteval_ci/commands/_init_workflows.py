"""The workflows `agenteval init` writes, from the templates in workflow_templates/ (the docs'
ready-to-copy workflows are copies of them: docs/workflows/pr-gate.yml, accept.yml).

An agent agenteval imports runs inside the action's container (gate.yml). An agent served
over HTTP, in another language or on a google-adk of its own, needs its toolchain or its own
virtualenv, which the container does not have: the job sets it up, runs the `agenteval` CLI on
the runner, and the action publishes the verdict (gate_served.yml, the action's `merge` mode). Both pass the variables the models need
(core/credentials.py) as `env:`, and sign in to Google Cloud first when a model needs it.
"""

from __future__ import annotations

import json
import re
import shlex
from importlib import resources
from pathlib import PurePosixPath
from string import Template

from .._release import ACTION, VERSION, is_release, published_names
from ..core.credentials import Credentials, Need, Variable
from ..files.served_projects import ServedProject
from ..schema.settings import JudgeSettings

# A project that names no key still has judges: Gemini's, with the Gemini API key.
DEFAULT_CREDENTIALS = Credentials((Need(Variable("GOOGLE_API_KEY"), "the agent's model and the judges"),))
GCP_CREDENTIALS = "GCP_CREDENTIALS"  # the secret holding a service account key, for google-github-actions/auth
AUTH_STEP = f"""      # Google Cloud credentials for Vertex AI (docs/judge.md): a service account key in the secret
      # {GCP_CREDENTIALS}, or workload identity federation (workload_identity_provider, service_account).
      - uses: google-github-actions/auth@v3
        with:
          credentials_json: ${{{{ secrets.{GCP_CREDENTIALS} }}}}
"""
_TOOLCHAINS = {
    "java": "      - uses: actions/setup-java@v5\n        with:\n          distribution: temurin\n          java-version: \"17\"\n",
    "go": "      - uses: actions/setup-go@v6\n        with:\n          go-version-file: {folder}/go.mod\n",
    "node": "      - uses: actions/setup-node@v5\n        with:\n          node-version: \"22\"\n",
    "python": "",  # the runner's python3 makes the agent's virtualenv
}


def yaml_scalar(value: str) -> str:
    plain = value and not re.search(r"(: | #|^[\s\"'&*!|>%@`{\[-])", value)
    return value if plain else json.dumps(value)


def env_block(credentials: Credentials, indent: str) -> str:
    """`env:` with a line per variable a run needs: a secret, a repository variable, or a fixed value."""
    if not credentials.required:
        return ""
    lines = [f"{indent}env:\n"]
    for need in credentials.required:
        variable = need.variable
        kind = "secrets" if variable.secret else "vars"
        value = json.dumps(variable.value) if variable.value is not None else f"${{{{ {kind}.{variable.name} }}}}"
        lines.append(f"{indent}  {variable.name}: {value}\n")
    return "".join(lines)


def _template(name: str) -> str:
    return resources.files("agenteval_ci").joinpath("workflow_templates", name).read_text(encoding="utf-8")


def _cache_dir(config: str) -> str:
    return str(PurePosixPath(config).parent / JudgeSettings().cache_dir).removeprefix("./")


def workflow(name: str, config: str, install: str, credentials: Credentials = DEFAULT_CREDENTIALS) -> str:
    """gate.yml (the agent in the action's container) or accept.yml."""
    rendered = Template(_template(name)).substitute(
        action=ACTION, config=config, install=yaml_scalar(install), cache_dir=_cache_dir(config),
        env=env_block(credentials, "        "), auth=AUTH_STEP if credentials.google_cloud else "")
    return rendered if install else rendered.replace("          install: \"\"\n", "")


def agenteval_requirement() -> str:
    """What `pip install` takes for this agenteval-ci: the release from PyPI, else the source the
    README names (a release stamps it)."""
    return f"agenteval-ci[adk]=={VERSION}" if is_release() else published_names()["pip from git"]


def _setup(project: ServedProject) -> str:
    step = _TOOLCHAINS[project.toolchain].format(folder=project.folder)
    if project.cache:
        step += f"          cache: {project.cache}\n"
        if project.cache == "npm":
            step += f"          cache-dependency-path: {project.folder}/package-lock.json\n"
    if project.install:
        step += f"      - run: {yaml_scalar(project.install)}\n        working-directory: {project.install_dir}\n"
    return step


def served_workflow(config: str, install: str, credentials: Credentials, served: list[ServedProject]) -> str:
    """gate_served.yml: the toolchains of the served projects, the CLI on the runner, the action to publish."""
    setups = "".join(dict.fromkeys(_setup(p) for p in served))
    return Template(_template("gate_served.yml")).substitute(
        served=", ".join(dict.fromkeys(p.sdk for p in served)), action=ACTION, config=config, cache_dir=_cache_dir(config),
        setup=setups, pip_install=yaml_scalar("pip install " + shlex.quote(agenteval_requirement())),
        install=f"      - run: {yaml_scalar(install)}\n" if install else "",
        env=env_block(credentials, "        "), auth=AUTH_STEP if credentials.google_cloud else "")
