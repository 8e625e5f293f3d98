"""Which variables a project's models need in CI (core/credentials.py): ADK's model classes,
LiteLLM's prefixes, the Gemini API or Vertex AI, what the agent reads or sets itself."""

from __future__ import annotations

import pytest

from agenteval_ci.core.credentials import Evidence, credentials_for, provider_of


def _names(evidence: Evidence) -> dict[str, tuple[bool, str | None]]:
    return {n.variable.name: (n.variable.secret, n.variable.value) for n in credentials_for(evidence).needs}


@pytest.mark.parametrize("model, provider", [
    ("gemini-2.5-flash", "Gemini"),
    ("gemma-3-27b-it", "Gemini"),
    ("projects/p/locations/us-central1/endpoints/123", "Gemini on a Vertex AI endpoint"),
    ("claude-sonnet-4@20250514", "Claude on Vertex AI (ADK's Claude)"),
    ("gpt-4o", "OpenAI (ADK's OpenAILlm)"),
    ("o3-mini", "OpenAI (ADK's OpenAILlm)"),
    ("openai/gpt-4o", "OpenAI via LiteLLM"),
    ("anthropic/claude-3-5-sonnet", "Anthropic via LiteLLM"),
    ("azure/my-deployment", "Azure OpenAI via LiteLLM"),
    ("vertex_ai/claude-3-sonnet", "Vertex AI via LiteLLM"),
    ("ollama_chat/llama3", "Ollama via LiteLLM (a server CI must run too)"),
])
def test_a_model_string_names_its_provider(model, provider):
    found = provider_of(model)
    assert found is not None and found.name == provider


@pytest.mark.parametrize("text", ["gemini", "gpt-4 is a model", "o3", "hello", "claude", "openai/"])
def test_text_that_is_no_model_string_is_not_taken_for_one(text):
    assert provider_of(text) is None


def test_a_gemini_agent_and_judges_need_one_key_the_one_the_project_names():
    assert _names(Evidence(agent_models={"gemini-2.5-flash": "a.py"})) == {"GOOGLE_API_KEY": (True, None)}
    assert _names(Evidence(agent_models={"gemini-2.5-flash": "a.py"}, dotenv_files={"GEMINI_API_KEY": ".env"},
                           dotenv={"GEMINI_API_KEY": "x"})) == {"GEMINI_API_KEY": (True, None)}
    both = Evidence(agent_models={"gemini-2.5-flash": "a.py"}, read={"GEMINI_API_KEY": "a.py"}, dotenv={"GOOGLE_API_KEY": "k"},
                    dotenv_files={"GOOGLE_API_KEY": ".env"})
    assert set(_names(both)) == {"GOOGLE_API_KEY", "GEMINI_API_KEY"}  # google-genai's key, and the one the agent reads itself


def test_an_adk_agent_without_a_model_string_runs_adks_default_model():
    needs = credentials_for(Evidence()).needs
    assert [(n.variable.name, n.why) for n in needs] == [("GOOGLE_API_KEY", "the agent's model gemini-2.5-flash (ADK's default model)")]


@pytest.mark.parametrize("switch, vertex", [("1", True), ("TRUE", True), ('"true"', True), ("0", False), ("false", False)])
def test_the_vertex_switch_of_the_env_file_picks_vertex_ai_and_google_cloud_credentials(switch, vertex):
    evidence = Evidence(agent_models={"gemini-2.0-flash": "a/agent.py"}, dotenv={"GOOGLE_GENAI_USE_VERTEXAI": switch, "GOOGLE_API_KEY": "k"},
                        dotenv_files={"GOOGLE_GENAI_USE_VERTEXAI": ".env", "GOOGLE_API_KEY": ".env"})
    credentials = credentials_for(evidence)
    names = _names(evidence)
    if vertex:
        assert names == {"GOOGLE_GENAI_USE_VERTEXAI": (False, "true"), "GOOGLE_CLOUD_PROJECT": (False, None),
                         "GOOGLE_CLOUD_LOCATION": (False, None)}
        assert credentials.google_cloud
    else:
        assert names == {"GOOGLE_API_KEY": (True, None)} and not credentials.google_cloud


def test_the_switch_the_project_writes_decides_before_the_environment_init_runs_in():
    """adk-samples write `GOOGLE_GENAI_USE_VERTEXAI=1` in .env.example: CI runs the project as it is
    written, whatever key the person running init happens to have."""
    vertex, api = {"GOOGLE_GENAI_USE_VERTEXAI": "true"}, {"GOOGLE_GENAI_USE_VERTEXAI": "0"}
    on_vertex = "GOOGLE_CLOUD_PROJECT"
    assert on_vertex in _names(Evidence(environ=vertex))
    assert on_vertex not in _names(Evidence(environ={"GOOGLE_API_KEY": "k"}))
    assert on_vertex not in _names(Evidence(environ=vertex, dotenv=api, dotenv_files={"GOOGLE_GENAI_USE_VERTEXAI": "agent/.env"}))
    example = {"dotenv": {"GOOGLE_GENAI_USE_VERTEXAI": "1"}, "dotenv_files": {"GOOGLE_GENAI_USE_VERTEXAI": ".env.example"}}
    assert on_vertex in _names(Evidence(**example))
    assert on_vertex in _names(Evidence(**example, environ={"GOOGLE_API_KEY": "k"}))  # a key here does not overrule the project
    assert on_vertex in _names(Evidence(**example, environ=api))
    assert on_vertex not in _names(Evidence(dotenv={"GOOGLE_GENAI_USE_VERTEXAI": ""}, environ={"GOOGLE_API_KEY": "k"},
                                            dotenv_files={"GOOGLE_GENAI_USE_VERTEXAI": ".env.example"}))  # left blank: not written


def test_what_the_agent_sets_at_import_the_agent_does_not_need_but_the_judges_do():
    """agent-starter-pack's agents set Vertex AI up themselves; the judges read their settings before
    the agent is imported, so the workflow must still give them."""
    assigned = {"GOOGLE_GENAI_USE_VERTEXAI": "True", "GOOGLE_CLOUD_PROJECT": "", "GOOGLE_CLOUD_LOCATION": "global"}
    agent_only = credentials_for(Evidence(agent_models={"gemini-2.5-flash": "app/agent.py"}, assigned=assigned))
    assert agent_only.needs == () and agent_only.google_cloud  # Google Cloud credentials all the same
    judged = credentials_for(Evidence(agent_models={"gemini-2.5-flash": "app/agent.py"}, assigned=assigned,
                                      judge_models={"gemini-2.5-flash": "hallucinations_v1, eval/test_config.json"}))
    assert [n.variable.name for n in judged.needs] == ["GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION"]
    assert all("the judges' model gemini-2.5-flash (hallucinations_v1" in n.why for n in judged.needs)


def test_other_providers_and_the_agents_own_reads():
    evidence = Evidence(agent_models={"openai/gpt-4o": "a.py", "azure/gpt4": "b.py", "bedrock/anthropic.claude-3": "c.py"},
                        judge_models={"gemini-2.5-flash": "cfg.json"},
                        read={"TAVILY_API_KEY": "tools.py", "DB_URL": "tools.py", "PATH": "x.py", "GITHUB_TOKEN": "x.py", "PORT": "x.py"},
                        dotenv_files={"STRIPE_SECRET": ".env.example", "GOOGLE_CLOUD_PROJECT": ".env.example"})
    assert _names(evidence) == {
        "GOOGLE_API_KEY": (True, None), "OPENAI_API_KEY": (True, None), "AZURE_API_KEY": (True, None),
        "AZURE_API_BASE": (False, None), "AZURE_API_VERSION": (False, None), "AWS_ACCESS_KEY_ID": (True, None),
        "AWS_SECRET_ACCESS_KEY": (True, None), "AWS_REGION_NAME": (False, None), "TAVILY_API_KEY": (True, None),
        "DB_URL": (False, None), "STRIPE_SECRET": (True, None),
    }


def test_a_name_only_a_env_file_gives_is_optional_and_one_marked_for_deployment_is_left_out():
    evidence = Evidence(agent_models={"gemini-2.5-flash": "app/agent.py"}, read={"TAVILY_API_KEY": "app/tools.py"},
                        dotenv_files={"TAVILY_API_KEY": ".env.example", "WEATHER_API_KEY": ".env.example", "GOOGLE_CLOUD_STORAGE_BUCKET": ".env.example"},
                        deployment=frozenset({"GOOGLE_CLOUD_STORAGE_BUCKET"}))
    credentials = credentials_for(evidence)
    assert {n.variable.name: n.optional for n in credentials.needs} == {"GOOGLE_API_KEY": False, "TAVILY_API_KEY": False, "WEATHER_API_KEY": True}
    assert [n.variable.name for n in credentials.required] == ["GOOGLE_API_KEY", "TAVILY_API_KEY"]
    assert credentials.unset({}) == ["GOOGLE_API_KEY", "TAVILY_API_KEY"]  # a run does not need the optional one


def test_claude_on_vertex_and_litellms_vertex_need_google_cloud_credentials():
    credentials = credentials_for(Evidence(agent_models={"claude-3-5-sonnet-v2@20241022": "a.py"}))
    assert credentials.google_cloud and credentials.names == ("GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION")
    litellm = credentials_for(Evidence(agent_models={"vertex_ai/gemini-2.0-flash": "a.py"}))
    assert litellm.google_cloud and litellm.names == ("VERTEXAI_PROJECT", "VERTEXAI_LOCATION")
