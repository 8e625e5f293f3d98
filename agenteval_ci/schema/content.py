"""The google.genai content shapes an eval set holds, as plain pydantic models.

We mirror the fields google-genai accepts (so a file ADK accepts, we accept) without
importing google.genai outside `judge/`. Fields we never read are kept as raw JSON.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any, Optional

from ._base import AdkModel


class FunctionCall(AdkModel):
    id: Optional[str] = None
    name: Optional[str] = None
    args: Optional[dict[str, Any]] = None  # None and {} differ, as in ADK
    partial_args: Any = None
    will_continue: Optional[bool] = None


class FunctionResponse(AdkModel):
    id: Optional[str] = None
    name: Optional[str] = None
    response: Optional[dict[str, Any]] = None
    will_continue: Optional[bool] = None
    scheduling: Any = None
    parts: Any = None


class Part(AdkModel):
    text: Optional[str] = None
    thought: Optional[bool] = None
    function_call: Optional[FunctionCall] = None
    function_response: Optional[FunctionResponse] = None
    # Fields google-genai accepts that no metric reads:
    media_resolution: Any = None
    code_execution_result: Any = None
    executable_code: Any = None
    file_data: Any = None
    inline_data: Any = None
    thought_signature: Any = None
    video_metadata: Any = None
    tool_call: Any = None
    tool_response: Any = None
    part_metadata: Any = None
    audio_transcription: Any = None
    media_processing: Any = None
    speech_metadata: Any = None


class Content(AdkModel):
    parts: Optional[list[Part]] = None
    role: Optional[str] = None

    @classmethod
    def from_text(cls, text: str, role: str = "user") -> "Content":
        return cls(parts=[Part(text=text)], role=role)

    @property
    def text(self) -> str:
        """The text parts joined by newlines, as ADK's evaluators read a response."""
        return "\n".join(p.text for p in self.parts or [] if p.text)


class UsageMetadata(AdkModel):
    """google-genai's GenerateContentResponseUsageMetadata."""

    prompt_token_count: Optional[int] = None
    candidates_token_count: Optional[int] = None
    total_token_count: Optional[int] = None
    cached_content_token_count: Optional[int] = None
    thoughts_token_count: Optional[int] = None
    tool_use_prompt_token_count: Optional[int] = None
    cache_tokens_details: Any = None
    candidates_tokens_details: Any = None
    prompt_tokens_details: Any = None
    tool_use_prompt_tokens_details: Any = None
    traffic_type: Any = None

    @classmethod
    def known_of(cls, data: dict[str, Any]) -> UsageMetadata:
        """The usage a reply or span reported, keeping the fields we know: a newer SDK adds
        fields, and an unknown one must not make a run's usage unreadable."""
        return cls.model_validate({k: v for k, v in data.items() if k in cls.model_fields})


def text_of(content: Optional[Content]) -> str:
    return content.text if content else ""


def inline_bytes(data: Any) -> bytes:
    """An inline_data's `data` as its bytes: base64 as JSON carries it (standard or URL-safe,
    padded or not), or bytes as google-genai holds them. ValueError saying why when it is neither."""
    if isinstance(data, (bytes, bytearray)):
        return bytes(data)
    if not isinstance(data, str):
        raise ValueError("inline_data.data is not base64 text")
    text = data.strip().replace("-", "+").replace("_", "/")
    try:
        return base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ValueError(f"inline_data.data is not valid base64 ({exc})") from None
