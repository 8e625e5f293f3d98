"""Which provider answers a judge model: google-adk 2.13's registry, mirrored (judge/routes.py)."""

from __future__ import annotations

import re

import pytest

from agenteval_ci.judge.routes import Unresolved, family, resolve
from agenteval_ci.schema.settings import JudgeProviderSettings, JudgeSettings

# ADK's class for a name -> what we call it with
OURS = {"Gemini": {"gemini"}, "Gemma": {"gemini"}, "Claude": {"claude"}, "OpenAILlm": {"openai"},
        "Gemma3Ollama": {"ollama"}, "LiteLlm": None}
NAMES = ["gemini-2.5-flash", "gemini-2.0-flash-001", "gemma-3-27b-it", "gemma-4-9b", "model-optimizer-x",
         "projects/p/locations/l/endpoints/123", "projects/p/locations/l/publishers/google/models/gemini-2.5-pro",
         "claude-sonnet-4", "gpt-4o", "gpt-4.1-mini", "o3-mini", "o4-mini-2025", "openai/gpt-4o", "azure/my-deployment",
         "azure_ai/command-r", "groq/llama3-70b", "anthropic/claude-3-opus", "bedrock/anthropic.claude-3", "ollama/llama3",
         "ollama/gemma3:4b", "ollama_chat/qwen", "together_ai/meta-llama/x", "vertex_ai/gemini-2.5-pro", "mistral/mistral-large",
         "deepseek/deepseek-chat", "fireworks_ai/accounts/f/models/m", "cohere/command-r", "databricks/dbrx", "ai21/jamba"]


def adk_class(model: str) -> str | None:
    """The class google-adk 2.13's registry picks, from its own pattern table, in its order."""
    providers = pytest.importorskip("google.adk.models")._LAZY_PROVIDERS
    for name, (patterns, _) in providers.items():
        if any(re.fullmatch(p, model) for p in patterns):
            return name
    return None


@pytest.mark.parametrize("model", NAMES)
def test_every_name_adk_resolves_goes_to_the_same_provider(model):
    expected = adk_class(model)
    ours, _ = family(model, {})
    if expected == "LiteLlm":  # a LiteLLM prefix: we name the provider (and call the OpenAI-compatible ones over HTTP)
        assert ours == model.split("/")[0]
    else:
        assert ours in OURS[expected], (model, expected, ours)


def test_keys_and_endpoints_come_from_the_variables_litellm_reads():
    env = {"OPENAI_API_KEY": "k", "AZURE_API_BASE": "https://r.openai.azure.com/", "AZURE_API_KEY": "a", "OLLAMA_API_BASE": "http://gpu:11434"}
    openai = resolve("openai/gpt-4o", JudgeSettings(), env)
    assert (openai.protocol, openai.base_url, openai.model, openai.api_key, openai.problem) == ("openai", "https://api.openai.com/v1", "gpt-4o", "k", None)
    azure = resolve("azure/dep", JudgeSettings(), env)
    assert (azure.protocol, azure.base_url, azure.api_version) == ("azure", "https://r.openai.azure.com", "2024-10-21")
    assert resolve("ollama/llama3", JudgeSettings(), env).base_url == "http://gpu:11434/v1"
    assert resolve("groq/llama3", JudgeSettings(), env).problem == "no judge credentials for groq/llama3: set GROQ_API_KEY"
    assert "AZURE_API_BASE" in resolve("azure/dep", JudgeSettings(), {}).problem
    assert resolve("claude-sonnet-4", JudgeSettings(), env).model == "vertex_ai/claude-sonnet-4"  # Claude on Vertex, via LiteLLM
    assert resolve("bedrock/x", JudgeSettings(), env).protocol == "litellm"


def test_the_judge_block_adds_and_changes_providers():
    settings = JudgeSettings(providers={"vllm": JudgeProviderSettings(base_url="http://h:8000/v1", api_key_env="VKEY"),
                                        "openai": JudgeProviderSettings(base_url="http://proxy/v1")})
    route = resolve("vllm/llama", settings, {"VKEY": "s"})
    assert (route.provider, route.base_url, route.api_key, route.problem) == ("vllm", "http://h:8000/v1", "s", None)
    assert resolve("vllm/llama", settings, {}).problem == "no judge credentials for vllm/llama: set VKEY"
    assert resolve("gpt-4o", settings, {"OPENAI_API_KEY": "k"}).base_url == "http://proxy/v1"


def test_adks_class_prefix_and_an_unknown_name():
    assert family("OpenAI:gpt-4o", {}) == ("openai", "gpt-4o")
    assert family("LiteLlm:anthropic/claude-3", {}) == ("anthropic", "claude-3")
    with pytest.raises(Unresolved, match="judge model 'my-model' not found"):
        family("my-model", {})


@pytest.mark.parametrize("model", NAMES + ["gemini/gemini-2.5-flash", "openrouter/x/y", "xai/grok-3"])
def test_init_names_the_key_the_judges_route_reads(model):
    """init and the judge read one table (core/providers.py): with only the variables init tells
    the user to set, the judge's route for the same model has its endpoint and key."""
    from agenteval_ci.core.credentials import variables_of
    from agenteval_ci.core.providers import provider_of

    row = provider_of(model)
    assert row is not None, model
    env = {v.name: v.value or f"value-of-{v.name}" for v in variables_of(row)}
    route = resolve(model, JudgeSettings(), env)
    assert route.problem is None, (model, route.problem)
    if route.protocol in ("openai", "azure") and row.key_variables:
        assert route.api_key == f"value-of-{row.init_secrets[0]}", model
    assert route.provider in (row.prefix, row.family, "vertex_ai"), (model, route.provider)  # ADK's Claude is on Vertex AI


def test_adding_an_openai_compatible_provider_is_one_row(monkeypatch):
    from agenteval_ci.core import credentials, providers
    from agenteval_ci.core.credentials import Evidence, credentials_for

    row = providers.Provider("Acme via LiteLLM", (r"acme/\S+",), prefix="acme", protocol="openai",
                             base_url="https://api.acme.test/v1", url_variables=("ACME_API_BASE",), key_variables=("ACME_API_KEY",))
    for module in (providers, credentials):  # the row, as if written into the table
        monkeypatch.setattr(module, "PROVIDERS", (*providers.PROVIDERS, row))
    monkeypatch.setitem(providers.BY_PREFIX, "acme", row)
    route = resolve("acme/m-1", JudgeSettings(), {"ACME_API_KEY": "k"})
    assert (route.protocol, route.provider, route.base_url, route.api_key) == ("openai", "acme", "https://api.acme.test/v1", "k")
    needs = credentials_for(Evidence(agent_models={"acme/m-1": "agent.py"}, adk_agent=False)).names
    assert needs == ("ACME_API_KEY",)
