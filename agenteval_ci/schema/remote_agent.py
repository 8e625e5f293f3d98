"""A suite's `agent:` as a mapping: an agent served over HTTP or deployed (docs/agents.md).

    agent:
      kind: http                 # http (our JSON contract), adk_api_server, a2a or agent_engine
      url: http://127.0.0.1:8080/turn
      start: npm start           # optional: we start it, wait until it is ready, stop its process group
      traces: true               # optional: an OTLP/HTTP receiver the agent's exporter points at
      auth: google               # optional: a bearer token fetched and refreshed (or {command: ...})

Only the keys of the chosen kind apply; the others are errors, so a typo never goes unread.
"""

from __future__ import annotations

import re
from typing import Literal, Optional, Union
from urllib.parse import urlsplit

from pydantic import Field, field_validator, model_validator

from ._base import StrictModel

RemoteKind = Literal["http", "adk_api_server", "a2a", "agent_engine"]
TrajectorySource = Literal["auto", "reply", "traces"]
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
ENV_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")  # `${VAR}` in `url` and in `env` and `headers` values
HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")  # RFC 9110 token
# Vertex AI Agent Engine's resource name, and the regional endpoint serving it.
ENGINE_NAME = re.compile(r"^projects/[^/]+/locations/(?P<location>[a-z0-9-]+)/reasoningEngines/[^/]+$")
ENGINE_PATH = re.compile(r"/v1(?:beta1)?/(projects/[^/]+/locations/[^/]+/reasoningEngines/[^/:]+)$")


def engine_url(resource_name: str) -> str:
    location = ENGINE_NAME.match(resource_name)
    assert location is not None
    return f"https://{location['location']}-aiplatform.googleapis.com/v1/{resource_name}"


class CommandAuth(StrictModel):
    """`auth: {command: ...}`: the command prints a token (its whole stdout, one line)."""

    command: str = Field(min_length=1)  # run with /bin/sh in agenteval.yaml's folder, with our environment
    # Re-run after this long; default: at the token's own `exp` when it is a JWT, else only on a 401.
    refresh_seconds: Optional[float] = Field(default=None, gt=0)


# `google`: a Google ID token for the service's origin (Cloud Run), or an access token for a
# *.googleapis.com URL, from the environment's credentials (docs/agents.md, "Deployed agents").
AuthConfig = Union[Literal["google"], CommandAuth]


def check_http_url(value: str) -> str:
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"expected an http:// or https:// URL, got {value!r}")
    try:
        parts.port  # noqa: B018 - raises on a port that is not a number
    except ValueError as exc:
        raise ValueError(f"{value!r}: {exc}") from None
    return value


class RemoteAgentConfig(StrictModel):
    kind: RemoteKind
    # http: the endpoint each turn is POSTed to; adk_api_server: the server's root;
    # a2a: the agent's root (its card at /.well-known/agent-card.json); agent_engine: the
    # engine's REST URL (.../v1/projects/P/locations/L/reasoningEngines/ID), or give
    # `resource_name`. Requests go only here. May use ${VAR}.
    url: str
    resource_name: Optional[str] = None  # agent_engine: projects/P/locations/L/reasoningEngines/ID
    app_name: Optional[str] = Field(default=None, min_length=1)  # adk_api_server: else the case's session_input.app_name
    # Started with /bin/sh in `cwd` (default: agenteval.yaml's folder), in its own process group.
    start: Optional[str] = Field(default=None, min_length=1)
    cwd: Optional[str] = None
    env: dict[str, str] = Field(default_factory=dict)  # for `start`; values may use ${VAR}
    ready: Optional[str] = None  # a path on `url`'s server or a URL, GET until 2xx; default per kind
    ready_timeout_seconds: float = Field(default=60.0, gt=0)
    stop_timeout_seconds: float = Field(default=5.0, gt=0)  # SIGTERM, then SIGKILL to the group
    headers: dict[str, str] = Field(default_factory=dict)  # sent with every request; values may use ${VAR}
    auth: Optional[AuthConfig] = None  # a bearer token fetched and refreshed for every request to `url`'s server
    traces: bool = False  # run the OTLP/HTTP receiver for this suite
    otlp_port: int = Field(default=0, ge=0, le=65535)  # 0: a free port (only for a started agent)
    trace_timeout_seconds: float = Field(default=10.0, gt=0)  # how long a turn waits for its spans
    trajectory: TrajectorySource = "auto"  # where tool calls come from (docs/agents.md)

    @model_validator(mode="before")
    @classmethod
    def _engine_url(cls, data: object) -> object:
        """An Agent Engine named by its resource name is served at its region's endpoint."""
        if isinstance(data, dict) and data.get("kind") == "agent_engine" and "url" not in data and isinstance(data.get("resource_name"), str):
            name = data["resource_name"]
            if not ENGINE_NAME.match(name):
                raise ValueError(f"resource_name: expected projects/PROJECT/locations/LOCATION/reasoningEngines/ID, got {name!r}")
            return {**data, "url": engine_url(name)}
        return data

    @field_validator("url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        # `${VAR}` (a preview deployment's URL known only in CI): checked once expanded
        return value if ENV_REFERENCE.search(value) else check_http_url(value)

    @field_validator("ready")
    @classmethod
    def _path_or_url(cls, value: Optional[str]) -> Optional[str]:
        if value is not None and not value.startswith("/"):
            check_http_url(value)
        return value

    @field_validator("env")
    @classmethod
    def _env_names(cls, value: dict[str, str]) -> dict[str, str]:
        bad = [name for name in value if not ENV_NAME.match(name)]
        if bad:
            raise ValueError(f"not an environment variable name: {', '.join(map(repr, bad))}")
        return value

    @field_validator("headers")
    @classmethod
    def _header_names(cls, value: dict[str, str]) -> dict[str, str]:
        bad = [name for name in value if not HEADER_NAME.match(name)]
        if bad:
            raise ValueError(f"not an HTTP header name: {', '.join(map(repr, bad))}")
        return value

    @model_validator(mode="after")
    def _keys_of_this_kind(self) -> "RemoteAgentConfig":
        if self.resource_name is not None and self.kind != "agent_engine":
            raise ValueError(f"resource_name: only for kind agent_engine (kind is {self.kind})")
        if self.kind == "agent_engine":
            self._check_engine()
        if self.app_name is not None and self.kind != "adk_api_server":
            raise ValueError(f"app_name: only for kind adk_api_server (kind is {self.kind})")
        if self.start is None:
            given = [k for k in ("cwd", "env") if k in self.model_fields_set]
            if given:
                raise ValueError(f"{', '.join(given)}: only with `start` (the command that starts the agent)")
        if self.traces and self.start is None and not self.otlp_port:
            raise ValueError(
                "traces: an agent we do not start needs a fixed `otlp_port` for its exporter to send to "
                "(export to http://127.0.0.1:PORT/v1/traces)"
            )
        if self.trajectory == "traces" and not self.traces:
            raise ValueError("trajectory: traces needs `traces: true`")
        if self.auth is not None and any(name.lower() == "authorization" for name in self.headers):
            raise ValueError("auth: sets the Authorization header; remove it from `headers`")
        if self.kind in ("adk_api_server", "agent_engine") and self.trajectory != "auto":
            raise ValueError("trajectory: ADK's server returns its events; the trajectory always comes from them")
        return self

    def _check_engine(self) -> None:
        if ENV_REFERENCE.search(self.url):
            return
        path = urlsplit(self.url).path.rstrip("/")
        if not ENGINE_PATH.search(path):
            raise ValueError(f"url: an Agent Engine's URL ends in /v1/projects/P/locations/L/reasoningEngines/ID, got {self.url!r}")
        if self.resource_name is not None and not path.endswith("/" + self.resource_name):
            raise ValueError(f"resource_name: {self.resource_name!r} is not the engine the url names ({self.url!r}); give one of them")
        if self.start is not None or self.traces:
            raise ValueError("start, traces: an Agent Engine runs on Vertex AI; we neither start it nor receive its spans")
