"""Which environment variables a project's models need in CI, as data (pure).

`agenteval init` names them in its next steps and in the workflow's `env:`. It reads the
project (files/project_scan.py) for evidence: the model strings in the agent's source, the
judges' models (ADK's `judge_model` in eval configs; the user simulator's model), the
variables the agent reads by name, and the `.env` files beside it (a name only they give is
optional: no code the eval runs reads it; one their comments mark for deployment is left
out). Which variables a model string's client reads is the provider table's (core/providers.py),
shared with the judge's routes. A Gemini model is served by the Gemini API or by
Vertex AI, as google-genai's switch `GOOGLE_GENAI_USE_VERTEXAI` says: wherever the project
writes it (its source, its `.env`, a `.env` example) before the environment init runs in.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from .providers import GEMINI_API_KEYS, PROVIDERS, Provider, provider_of

VERTEX_SWITCH = "GOOGLE_GENAI_USE_VERTEXAI"  # google-genai: "true" or "1" picks Vertex AI
ADC_FILE = "GOOGLE_APPLICATION_CREDENTIALS"  # a path, set by the workflow's auth step
# What the Gemini API or Vertex AI choice decides, not a name to copy from a .env file.
GOOGLE_SETTINGS = frozenset({*GEMINI_API_KEYS, VERTEX_SWITCH, "GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION", ADC_FILE})
ADK_DEFAULT_MODEL = "gemini-2.5-flash"  # an ADK LlmAgent without a model, and a judge without judge_model


@dataclass(frozen=True)
class Variable:
    name: str
    secret: bool = True  # a secret (`secrets.NAME`); else a setting (`vars.NAME`)
    value: str | None = None  # written into the workflow as is (`GOOGLE_GENAI_USE_VERTEXAI: "true"`)


def _setting(name: str) -> Variable:
    return Variable(name, secret=False)


GOOGLE_CLOUD = (_setting("GOOGLE_CLOUD_PROJECT"), _setting("GOOGLE_CLOUD_LOCATION"))
VERTEX = (Variable(VERTEX_SWITCH, secret=False, value="true"), *GOOGLE_CLOUD)


def variables_of(provider: Provider) -> tuple[Variable, ...]:
    """What init names for a provider's row: its secrets, then its settings."""
    if provider.vertex:
        return VERTEX
    return (*(Variable(name) for name in provider.init_secrets), *(_setting(name) for name in provider.settings))


# Read by name but never a credential: the runner's, the shell's, the agent server's port.
_NOT_CREDENTIALS = re.compile(r"(PATH|HOME|USER|PWD|SHELL|LANG|TERM|TZ|TMPDIR|PORT|HOST|CI|DEBUG|LOG_LEVEL|PYTHON\w*|NODE_ENV"
                              r"|(GITHUB|RUNNER|ACTIONS|OTEL|AGENTEVAL)_\w*)")
_SECRET_WORDS = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|PRIVATE")


def looks_like_model(text: str) -> bool:
    return provider_of(text) is not None


def is_truthy(value: str) -> bool:
    """google-genai's reading of GOOGLE_GENAI_USE_VERTEXAI."""
    return value.strip().strip("'\"").lower() in ("true", "1")


@dataclass(frozen=True)
class Evidence:
    """What init found in the project, each thing with where it was found."""

    agent_models: Mapping[str, str] = field(default_factory=dict)  # model string -> where
    judge_models: Mapping[str, str] = field(default_factory=dict)  # the judges' and the user simulator's
    read: Mapping[str, str] = field(default_factory=dict)  # variables the agent reads by name -> where
    assigned: Mapping[str, str] = field(default_factory=dict)  # variables the agent sets itself -> the value ("" unknown)
    dotenv: Mapping[str, str] = field(default_factory=dict)  # name -> value, from the project's .env files
    dotenv_files: Mapping[str, str] = field(default_factory=dict)  # name -> the .env file that names it
    deployment: frozenset[str] = frozenset()  # .env names their comments mark as deployment's
    environ: Mapping[str, str] = field(default_factory=dict)  # where init runs: only the switch is read from it
    adk_agent: bool = True  # an ADK agent without a model string found runs ADK's default model


@dataclass(frozen=True)
class Need:
    variable: Variable
    why: str  # "the agent's model gemini-2.5-flash (shop/agent.py); the judges"
    optional: bool = False  # only a .env file names it: no code the eval runs reads it


@dataclass(frozen=True)
class Credentials:
    needs: tuple[Need, ...] = ()
    google_cloud: bool = False  # Google Cloud credentials too: an auth step in the workflow

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(n.variable.name for n in self.needs)

    @property
    def required(self) -> tuple[Need, ...]:
        """What a run needs: the workflow's `env:`."""
        return tuple(n for n in self.needs if not n.optional)

    def unset(self, environ: Mapping[str, str]) -> list[str]:
        """The variables a run needs from `environ` that it does not have (a fixed value is the workflow's)."""
        return [n.variable.name for n in self.required if n.variable.value is None and not environ.get(n.variable.name)]


def _vertex(evidence: Evidence) -> bool:
    """Gemini through Vertex AI, as the project says wherever it writes the switch: the agent
    setting it itself, then its .env files (the real one before an example; CI runs what the
    project is written for); only then the environment init runs in. Said nowhere: the Gemini API."""
    switch = VERTEX_SWITCH
    if evidence.assigned.get(switch):
        return is_truthy(evidence.assigned[switch])
    if evidence.dotenv.get(switch, "").strip():
        return is_truthy(evidence.dotenv[switch])
    if evidence.environ.get(switch):
        return is_truthy(evidence.environ[switch])
    return False


def _gemini_key(evidence: Evidence) -> str:
    """The key name the project uses: GEMINI_API_KEY where only it is named, else GOOGLE_API_KEY."""
    named = {*evidence.read, *evidence.dotenv}
    return "GEMINI_API_KEY" if "GEMINI_API_KEY" in named and "GOOGLE_API_KEY" not in named else "GOOGLE_API_KEY"


def _provider_variables(provider: Provider, evidence: Evidence) -> tuple[Variable, ...]:
    if not provider.gemini:
        return variables_of(provider)
    return VERTEX if _vertex(evidence) else (Variable(_gemini_key(evidence)),)


def _by_provider(agent_models: Mapping[str, str], judge_models: Mapping[str, str]) -> dict[str, tuple[list[str], list[str]]]:
    """Provider name -> (the agent's models it serves, the judges'), each as `model (where)`."""
    found: dict[str, tuple[list[str], list[str]]] = {}
    for index, models in enumerate((agent_models, judge_models)):
        for model, where in models.items():
            provider = provider_of(model)
            if provider is not None:
                found.setdefault(provider.name, ([], []))[index].append(f"{model} ({where})")
    return found


def credentials_for(evidence: Evidence) -> Credentials:
    """Every variable the agent's models, the judges and the agent's own reads need in CI. What
    the agent sets itself at import it does not need; the judges do, since they read their
    settings before the agent is imported (docs/judge.md)."""
    agent_models = dict(evidence.agent_models)
    if not agent_models and evidence.adk_agent:
        agent_models[ADK_DEFAULT_MODEL] = "ADK's default model"
    served = _by_provider(agent_models, evidence.judge_models)
    needs: dict[str, Need] = {}
    google_cloud = False
    for provider in PROVIDERS:
        if provider.name not in served:
            continue
        agent, judges = served[provider.name]
        variables = _provider_variables(provider, evidence)
        google_cloud |= provider.google_cloud or variables == VERTEX
        for variable in variables:
            whys = ([] if variable.name in evidence.assigned else [f"the agent's model {m}" for m in agent])
            whys += [f"the judges' model {m}" for m in judges]
            if whys:
                _add(needs, variable, "; ".join(whys))
    google_cloud |= ADC_FILE in evidence.read
    for name, where in evidence.read.items():
        if name != ADC_FILE:
            _add_named(needs, evidence, name, f"the agent reads it ({where})")
    for name, where in evidence.dotenv_files.items():
        if name not in GOOGLE_SETTINGS and name not in evidence.deployment:
            _add_named(needs, evidence, name, f"named in {where}", optional=True)
    return Credentials(tuple(needs.values()), google_cloud)


def _add_named(needs: dict[str, Need], evidence: Evidence, name: str, why: str, optional: bool = False) -> None:
    """A variable the project names: a secret when its name says so (KEY, TOKEN, ...)."""
    if name not in evidence.assigned and not _NOT_CREDENTIALS.fullmatch(name):
        _add(needs, Variable(name, secret=bool(_SECRET_WORDS.search(name))), why, optional)


def _add(needs: dict[str, Need], variable: Variable, why: str, optional: bool = False) -> None:
    """A need, or one more reason for it (needed when any reason needs it)."""
    old = needs.get(variable.name)
    if old is None:
        needs[variable.name] = Need(variable, why, optional)
    else:
        needs[variable.name] = Need(old.variable, f"{old.why}; {why}", old.optional and optional)
