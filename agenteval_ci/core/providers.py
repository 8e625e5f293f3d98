"""Every model provider we know, one row each (pure data): the judge's route, the judge's media
(which models take which images and files: `TakesMedia`) and init's key naming all read this table, so adding a provider is one row here (plus a module in judge/providers/
when it speaks a new wire protocol).

The rows follow google-adk 2.13's model registry (google/adk/models/__init__.py, registry.py):
its own model classes first (Gemini, Claude on Vertex AI, OpenAI's `gpt-*`, Apigee), matched by
model-name pattern; then LiteLLM's `provider/model` prefixes, with the environment variables
LiteLLM reads for each. Where a provider speaks OpenAI's chat-completions protocol the judge
calls it over plain HTTP (judge/providers/openai.py); the others go through LiteLLM, the
optional extra.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..schema.eval_config import MANAGED_PREFIX

GEMINI_API_KEYS = ("GOOGLE_API_KEY", "GEMINI_API_KEY")  # google-genai reads either (GOOGLE_API_KEY wins when both are set)


@dataclass(frozen=True)
class TakesMedia:
    """Judge models of a provider that take images or files with the prompt: the model names
    (a regular expression, matched whole, against the name without its provider prefix) and
    the MIME types they take (a regular expression). docs/judge.md says where each row comes from."""

    models: str
    mime_types: str


# Gemini takes images, audio, video, PDFs and plain text documents as inline data or file URIs
# (Google's "image / audio / video / document understanding" guides).
GEMINI_MEDIA = (TakesMedia(r"gemini-\S+", r"image/(png|jpeg|webp|heic|heif)|audio/\S+|video/\S+|application/pdf|text/plain"),
                TakesMedia(r"gemma-3\S*", r"image/(png|jpeg|webp)"))
# OpenAI's vision models take images; its file inputs take PDFs (OpenAI's "images and vision" and
# "file inputs" guides name the gpt-4o, gpt-4.1, gpt-5 and o-series models).
# o1-mini, o1-preview, o3-mini and gpt-4-turbo-preview read text only; the audio, realtime,
# transcription, speech and search variants are other kinds of model.
_DATED = r"(-\d{4}-\d{2}-\d{2})?"
OPENAI_MEDIA = (TakesMedia(rf"(?!\S*(audio|realtime|transcribe|tts|search))(gpt-4o\S*|gpt-4\.1\S*|gpt-5\S*|gpt-4-turbo{_DATED}"
                           rf"|o1{_DATED}|o3(-pro)?{_DATED}|o4-mini{_DATED})",
                           r"image/(png|jpeg|gif|webp)|application/pdf"),)
# Claude 3 and later take images and PDFs (Anthropic's "vision" and "PDF support" pages); LiteLLM
# turns OpenAI-style content parts into Anthropic's.
CLAUDE_MEDIA = (TakesMedia(r"claude-(3|opus-4|sonnet-4|haiku-4)\S*", r"image/(png|jpeg|gif|webp)|application/pdf"),)


@dataclass(frozen=True)
class Provider:
    """One provider: which model strings it serves, how the judge reaches it, what init names."""

    name: str  # as init shows it: "Groq via LiteLLM"
    models: tuple[str, ...]  # the model strings it serves: regular expressions, matched whole
    prefix: str | None = None  # LiteLLM's provider prefix (`groq/...`); None for ADK's own classes
    family: str | None = None  # ADK's own class the judge resolves a prefix-less name to: gemini, claude, openai
    protocol: str = "litellm"  # how the judge speaks to it: openai | azure | gemini | litellm | vertex_eval
    base_url: str | None = None  # the default endpoint
    url_variables: tuple[str, ...] = ()  # the first one set overrides base_url
    key_variables: tuple[str, ...] = ()  # the judge reads the first one set; init names the first
    needs_key: bool = True
    path: str = ""  # added to a base URL read from a variable (Ollama serves OpenAI's API under /v1)
    secrets: tuple[str, ...] | None = None  # what init names as secrets; None: key_variables[:1]
    settings: tuple[str, ...] = ()  # what init names as settings (`vars.NAME`)
    gemini: bool = False  # google-genai: the Gemini API's key, or Vertex AI, as the project's switch says
    vertex: bool = False  # google-genai on Vertex AI whatever the switch: the workflow sets it to "true"
    google_cloud: bool = False  # needs Google Cloud credentials (application default credentials)
    media: tuple[TakesMedia, ...] = ()  # which of its models take which images and files as a judge; none: text only

    def serves(self, model: str) -> bool:
        return any(re.fullmatch(pattern, model) for pattern in self.models)

    @property
    def init_secrets(self) -> tuple[str, ...]:
        return self.key_variables[:1] if self.secrets is None else self.secrets


def _prefixed(name: str, prefix: str, **row: object) -> Provider:
    return Provider(name, (rf"{prefix}/\S+",), prefix=prefix, **row)  # type: ignore[arg-type]


def _openai_compatible(name: str, prefix: str, base_url: str | None, url_variable: str, *keys: str, **row: object) -> Provider:
    return _prefixed(name, prefix, protocol="openai", base_url=base_url, url_variables=(url_variable,), key_variables=keys, **row)


_VERTEX_ENDPOINT = r"projects/\S+/locations/\S+/(endpoints/\S+|publishers/google/models/gemini\S+)"

# Order matters: the first row whose pattern matches a model string serves it.
PROVIDERS: tuple[Provider, ...] = (
    # ADK's own model classes (google.adk.models.LLMRegistry, 2.13)
    Provider("Gemini", (r"gemini-\S+", r"gemma-\S+", r"model-optimizer-\S+"), family="gemini", protocol="gemini", gemini=True,
             media=GEMINI_MEDIA),
    Provider("Gemini on a Vertex AI endpoint", (_VERTEX_ENDPOINT,), family="gemini", protocol="gemini",
             settings=("GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION"), vertex=True, google_cloud=True, media=GEMINI_MEDIA),
    Provider("Claude on Vertex AI (ADK's Claude)", (r"claude-\S+",), family="claude",
             settings=("GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION"), google_cloud=True, media=CLAUDE_MEDIA),
    Provider("OpenAI (ADK's OpenAILlm)", (r"gpt-\S+", r"o\d+-\S+"), family="openai", secrets=("OPENAI_API_KEY",)),
    # agents-cli's managed metrics: the Gen AI evaluation service (Vertex AI's evaluateInstances)
    _prefixed("Gen AI evaluation service (managed metrics)", MANAGED_PREFIX, protocol="vertex_eval", url_variables=("GOOGLE_VERTEX_BASE_URL",),
              needs_key=False, settings=("GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION"), google_cloud=True),
    _prefixed("Apigee (ADK's ApigeeLlm)", "apigee", settings=("APIGEE_PROXY_URL",), needs_key=False, google_cloud=True),
    # LiteLLM's provider prefixes (ADK's LiteLlm)
    _prefixed("OpenAI via LiteLLM", "openai", protocol="openai", base_url="https://api.openai.com/v1",
              url_variables=("OPENAI_BASE_URL", "OPENAI_API_BASE"), key_variables=("OPENAI_API_KEY",), media=OPENAI_MEDIA),
    _prefixed("Azure OpenAI via LiteLLM", "azure", protocol="azure", url_variables=("AZURE_API_BASE", "AZURE_OPENAI_ENDPOINT"),
              key_variables=("AZURE_API_KEY", "AZURE_OPENAI_API_KEY"), settings=("AZURE_API_BASE", "AZURE_API_VERSION")),
    _openai_compatible("Azure AI via LiteLLM", "azure_ai", None, "AZURE_AI_API_BASE", "AZURE_AI_API_KEY", settings=("AZURE_AI_API_BASE",)),
    _prefixed("Anthropic via LiteLLM", "anthropic", secrets=("ANTHROPIC_API_KEY",), needs_key=False, media=CLAUDE_MEDIA),
    _prefixed("Vertex AI via LiteLLM", "vertex_ai", settings=("VERTEXAI_PROJECT", "VERTEXAI_LOCATION"), needs_key=False, google_cloud=True,
              media=GEMINI_MEDIA + CLAUDE_MEDIA),
    _prefixed("Gemini API via LiteLLM", "gemini", secrets=("GEMINI_API_KEY",), needs_key=False, media=GEMINI_MEDIA),
    _prefixed("Amazon Bedrock via LiteLLM", "bedrock", secrets=("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"),
              settings=("AWS_REGION_NAME",), needs_key=False),
    _openai_compatible("Groq via LiteLLM", "groq", "https://api.groq.com/openai/v1", "GROQ_API_BASE", "GROQ_API_KEY"),
    _openai_compatible("Mistral via LiteLLM", "mistral", "https://api.mistral.ai/v1", "MISTRAL_API_BASE", "MISTRAL_API_KEY"),
    _openai_compatible("DeepSeek via LiteLLM", "deepseek", "https://api.deepseek.com/v1", "DEEPSEEK_API_BASE", "DEEPSEEK_API_KEY"),
    _openai_compatible("Together AI via LiteLLM", "together_ai", "https://api.together.xyz/v1", "TOGETHERAI_API_BASE",
                       "TOGETHERAI_API_KEY", "TOGETHER_AI_API_KEY", "TOGETHER_API_KEY"),
    _openai_compatible("Fireworks AI via LiteLLM", "fireworks_ai", "https://api.fireworks.ai/inference/v1", "FIREWORKS_API_BASE",
                       "FIREWORKS_AI_API_KEY", "FIREWORKS_API_KEY"),
    _prefixed("Cohere via LiteLLM", "cohere", secrets=("COHERE_API_KEY",), needs_key=False),
    _openai_compatible("Databricks via LiteLLM", "databricks", None, "DATABRICKS_API_BASE", "DATABRICKS_API_KEY",
                       settings=("DATABRICKS_API_BASE",)),
    _prefixed("AI21 via LiteLLM", "ai21", secrets=("AI21_API_KEY",), needs_key=False),
    _prefixed("OpenRouter via LiteLLM", "openrouter", secrets=("OPENROUTER_API_KEY",), needs_key=False),
    _prefixed("xAI via LiteLLM", "xai", secrets=("XAI_API_KEY",), needs_key=False),
    _openai_compatible("Ollama via LiteLLM (a server CI must run too)", "ollama", "http://localhost:11434/v1", "OLLAMA_API_BASE",
                       needs_key=False, path="/v1", settings=("OLLAMA_API_BASE",)),
    _openai_compatible("Ollama via LiteLLM (a server CI must run too)", "ollama_chat", "http://localhost:11434/v1",
                       "OLLAMA_API_BASE", needs_key=False, path="/v1", settings=("OLLAMA_API_BASE",)),
)

BY_PREFIX: dict[str, Provider] = {p.prefix: p for p in PROVIDERS if p.prefix is not None}


def provider_of(model: str) -> Provider | None:
    """The row serving `model`: the first whose pattern matches it whole."""
    return next((p for p in PROVIDERS if p.serves(model)), None)


def media_types(rows: tuple[TakesMedia, ...], model: str) -> str | None:
    """The MIME types (a regular expression) judge model `model` takes, by the first row naming it; None: none."""
    return next((row.mime_types for row in rows if re.fullmatch(row.models, model)), None)


def adk_family(model: str) -> str | None:
    """The ADK model class a prefix-less model name resolves to (gemini, claude, openai), if any."""
    return next((p.family for p in PROVIDERS if p.family is not None and p.serves(model)), None)
