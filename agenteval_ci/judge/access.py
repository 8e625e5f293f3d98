"""How the judge reaches its model, read from the environment once, before any user code runs.

An agent may set GOOGLE_GENAI_USE_VERTEXAI, a key or a project in `os.environ` when it is
imported (agent samples do): that is the agent's business, not the judge's. So the judge's
endpoint and credentials are taken from a snapshot made before the agent is loaded and are
handed to google-genai explicitly, leaving it nothing to read from `os.environ` itself.
The other providers' keys and endpoints come from the same snapshot (routes.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Optional

TRUTHY = {"1", "true", "yes", "on"}
NO_CREDENTIALS = (
    "no judge credentials: set GOOGLE_API_KEY or GEMINI_API_KEY "
    "(or Vertex: GOOGLE_GENAI_USE_VERTEXAI=true with GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION)"
)
DEFAULT_VERTEX_LOCATION = "us-central1"


@dataclass(frozen=True)
class JudgeAccess:
    vertexai: bool = False
    api_key: Optional[str] = field(default=None, repr=False)
    project: Optional[str] = None
    location: str = DEFAULT_VERTEX_LOCATION
    base_url: Optional[str] = None  # judge.base_url, else GOOGLE_GEMINI_BASE_URL / GOOGLE_VERTEX_BASE_URL
    credentials_file: Optional[str] = None  # GOOGLE_APPLICATION_CREDENTIALS, read for Vertex AI
    # The whole snapshot: the other providers' keys and endpoints are read from it by name
    # (routes.py), since agenteval.yaml may name any variable.
    env: Mapping[str, str] = field(default_factory=dict, repr=False)

    @classmethod
    def from_env(cls, env: Mapping[str, str], base_url: Optional[str] = None) -> "JudgeAccess":
        vertexai = env.get("GOOGLE_GENAI_USE_VERTEXAI", "").strip().lower() in TRUTHY
        url_variable = "GOOGLE_VERTEX_BASE_URL" if vertexai else "GOOGLE_GEMINI_BASE_URL"
        return cls(
            vertexai=vertexai,
            api_key=None if vertexai else (env.get("GOOGLE_API_KEY") or env.get("GEMINI_API_KEY") or None),
            project=env.get("GOOGLE_CLOUD_PROJECT") or None,
            location=env.get("GOOGLE_CLOUD_LOCATION") or DEFAULT_VERTEX_LOCATION,
            base_url=base_url or env.get(url_variable) or None,
            credentials_file=env.get("GOOGLE_APPLICATION_CREDENTIALS") or None,
            env=dict(env),
        )

    @property
    def problem(self) -> Optional[str]:
        """Why the judge cannot be asked at all (no key, no project), or None."""
        if self.vertexai:
            return None if self.project else NO_CREDENTIALS
        return None if self.api_key else NO_CREDENTIALS

