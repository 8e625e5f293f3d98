"""A google-adk agent, run as `adk eval` runs it: a Runner over in-memory services,
one session per case run, events turned into invocations the way ADK records them.

google-adk is an optional extra; it is imported only here, and only when an ADK agent runs.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Optional

from ..errors import DependencyError
from ..schema import AppDetails, Content, EvalCase, Invocation, InvocationEvent, InvocationEvents, UsageMetadata
from . import describe_import_error
from ._imports import import_file, import_module, import_package

INSTALL_HINT = "this agent is a google-adk agent; install the extra: pip install 'agenteval-ci[adk]'"
# ADK's names when an eval case has no session_input.
DEFAULT_APP_NAME = "EvaluationGenerator"
DEFAULT_USER_ID = "test_user_id"


def _adk() -> Any:
    try:
        from google.adk import runners
    except ImportError as exc:
        raise DependencyError(f"{INSTALL_HINT} ({exc})") from None
    return runners


def _app_details_recorder() -> Optional[Any]:
    """The plugin recording app_details, or None on google-adk releases before plugins (1.2-1.6):
    their turns then carry no app_details, and judged metrics say they went without them."""
    try:
        from ._adk_requests import AppDetailsRecorder
    except ImportError:
        return None
    return AppDetailsRecorder()


def _agent_module(spec: str, base_dir: Path) -> Any:
    """A folder whose __init__.py imports `agent` (ADK's layout), a .py file, or a dotted module."""
    folder = base_dir / spec
    if (folder / "__init__.py").is_file():
        package = import_package(folder)
        return getattr(package, "agent", package)
    if spec.endswith(".py") and folder.is_file():
        return import_file(folder)
    if folder.is_dir():
        raise FileNotFoundError(f"{folder.as_posix()} is a folder without __init__.py (ADK's layout: __init__.py doing `from . import agent`)")
    if "/" in spec or spec.endswith(".py") or not all(part.isidentifier() for part in spec.split(".")):
        raise FileNotFoundError(f"no agent folder or .py file at {folder.as_posix()}")  # a path, not a module name
    module = import_module(spec, base_dir)
    return getattr(module, "agent", module) if not _exposes_agent(module) else module


def _app_class() -> Any:
    """google-adk's App, which versions before 1.14 do not have (nor can a module expose one)."""
    try:
        from google.adk.apps import App
    except ImportError:
        return None
    return App


def _exposes_agent(module: Any) -> bool:
    return any(hasattr(module, name) for name in ("app", "root_agent", "get_agent_async"))


async def _root_agent_and_app(module: Any) -> tuple[Any, Any]:
    """ADK's order: an `app` (App), else `root_agent`, else `await get_agent_async()`."""
    app = getattr(module, "app", None)
    app_class = _app_class()
    if app_class is not None and isinstance(app, app_class):
        return app.root_agent, app
    if hasattr(module, "root_agent"):
        return module.root_agent, None
    if hasattr(module, "get_agent_async"):
        agent, _exit_stack = await module.get_agent_async()
        return agent, None
    raise ValueError("the agent module exposes none of `app`, `root_agent` or `get_agent_async()`")


def _to_ours(model_class: Any, genai_value: Any) -> Any:
    """A google.genai object as our pydantic mirror of it (through JSON, so no genai types leak)."""
    if genai_value is None:
        return None
    return model_class.model_validate(genai_value.model_dump(mode="json", exclude_none=True))


def _usage(event: Any) -> Optional[UsageMetadata]:
    if event.usage_metadata is None:
        return None
    return UsageMetadata.known_of(event.usage_metadata.model_dump(mode="json", exclude_none=True))


def _worth_keeping(event: Any) -> bool:
    """ADK keeps events that carry a call, a tool response, text, inline data or grounding."""
    if event.grounding_metadata is not None:
        return True
    parts = event.content.parts if event.content else None
    return any(p.function_call or p.function_response or p.text or p.inline_data for p in parts or [])


def events_to_invocation(user_content: Content, events: list[Any], duration: float, app_details: Optional[AppDetails] = None) -> Invocation:
    """One user turn's events -> one Invocation, as ADK's EvaluationGenerator records it."""
    final_event: Any = None
    for event in events:
        if event.content and event.content.parts and event.is_final_response():
            has_text = any(p.text for p in event.content.parts)
            if final_event is None or has_text or not any(p.text for p in final_event.content.parts):
                final_event = event
    recorded = []
    for event in events:
        if not _worth_keeping(event):
            continue
        # The final text is already the invocation's final_response; ADK drops it here
        # unless the event also calls a tool.
        keep_content = event is not final_event or bool(event.get_function_calls())
        recorded.append(
            InvocationEvent(
                author=event.author,
                content=_to_ours(Content, event.content) if keep_content else None,
                grounding_metadata=event.grounding_metadata.model_dump(mode="json", exclude_none=True) if event.grounding_metadata else None,
                usage_metadata=_usage(event),
                model_version=getattr(event, "model_version", None),  # google-adk >= 1.1x
            )
        )
    return Invocation(
        invocation_id=events[0].invocation_id if events else str(uuid.uuid4()),
        user_content=user_content,
        final_response=_to_ours(Content, final_event.content) if final_event else None,
        intermediate_data=InvocationEvents(invocation_events=recorded),
        creation_timestamp=time.time(),
        duration=round(duration, 3),
        app_details=app_details,
    )


def state_as_json(state: Mapping[str, Any]) -> dict[str, Any]:
    """A session state as plain JSON values (what the results file and the rules compare)."""
    from pydantic_core import to_jsonable_python

    return dict(to_jsonable_python(dict(state), fallback=repr))


class AdkConversation:
    def __init__(self, runner: Any, user_id: str, session_id: str, recorder: Optional[Any]):
        self._runner = runner
        self._user_id = user_id
        self._session_id = session_id
        self._recorder = recorder  # an AppDetailsRecorder among the runner's plugins

    async def send(self, user_content: Content) -> Invocation:
        from google.genai import types

        message = types.Content.model_validate(user_content.model_dump(mode="json", exclude_none=True))
        started = time.monotonic()
        events = []
        async for event in self._runner.run_async(user_id=self._user_id, session_id=self._session_id, new_message=message):
            events.append(event)
        duration = time.monotonic() - started
        app_details = self._recorder.take(events[0].invocation_id) if events and self._recorder else None
        return events_to_invocation(user_content, events, duration, app_details)

    def unreported(self) -> list[str]:
        return []  # an ADK agent's events hold everything the judges read

    async def final_state(self) -> dict[str, Any] | None:
        """The session's state as the session service holds it after the last turn (app: and
        user: keys merged in, temp: keys gone), as JSON: a value JSON cannot hold is its repr."""
        session = await self._runner.session_service.get_session(
            app_name=self._runner.app_name, user_id=self._user_id, session_id=self._session_id
        )
        return state_as_json(session.state) if session is not None else None

    async def close(self) -> None:
        close = getattr(self._runner, "close", None)  # google-adk 1.0-1.x: no Runner.close
        if close is not None:
            await close()


class AdkAgent:
    def __init__(self, module: Any):
        self._module = module
        self._resolved: Optional[tuple[Any, Any]] = None

    async def start(self, case: EvalCase, run_index: int) -> AdkConversation:
        runners = _adk()
        from google.adk.artifacts import InMemoryArtifactService
        from google.adk.memory import InMemoryMemoryService
        from google.adk.sessions import InMemorySessionService

        if self._resolved is None:
            self._resolved = await _root_agent_and_app(self._module)
        root_agent, app = self._resolved
        given = case.session_input
        app_name = given.app_name if given else DEFAULT_APP_NAME
        user_id = given.user_id if given else DEFAULT_USER_ID
        sessions = InMemorySessionService()
        session = await sessions.create_session(
            app_name=app_name,
            user_id=user_id,
            state=dict(given.state) if given else {},
            session_id=(given.session_id if given else None) or str(uuid.uuid4()),
        )
        recorder = _app_details_recorder()
        plugins = [recorder] if recorder else []
        # As adk eval builds its runner: the App's own plugins first, then the recorder.
        if app:
            target = {"app": app.model_copy(update={"root_agent": root_agent, "plugins": [*app.plugins, *plugins]}), "app_name": app_name}
        else:
            target = {"agent": root_agent, "app_name": app_name, **({"plugins": plugins} if plugins else {})}
        runner = runners.Runner(
            **target,
            session_service=sessions,
            artifact_service=InMemoryArtifactService(),
            memory_service=InMemoryMemoryService(),
        )
        return AdkConversation(runner, user_id, session.id, recorder)

    async def aclose(self) -> None:
        pass

    def close(self) -> None:
        pass


def load_adk_agent(spec: str, base_dir: Path) -> AdkAgent:
    _adk()
    try:
        module = _agent_module(spec, base_dir)
    except (Exception, SystemExit) as exc:  # the user's agent failed to import: say which and why
        raise describe_import_error(spec, exc) from exc
    if not _exposes_agent(module):
        raise describe_import_error(spec, ValueError("the agent module exposes none of `app`, `root_agent` or `get_agent_async()`"))
    return AdkAgent(module)


def override_features(features: Mapping[str, bool]) -> list[str]:
    """adk eval's --enable_features/--disable_features: google-adk's feature switches set in this
    process, as adk eval sets them, before the agent is imported; an unknown name is a warning there
    too (returned, with the valid names)."""
    if not features:
        return []
    try:
        from google.adk.features import FeatureName, override_feature_enabled
    except ImportError as exc:
        raise DependencyError(f"--enable_features/--disable_features switch google-adk's features: {INSTALL_HINT} ({exc})") from None
    known = {feature.value: feature for feature in FeatureName}
    unknown = [name for name in features if name not in known]
    for name, enabled in features.items():
        if name in known:
            override_feature_enabled(known[name], enabled)
    if not unknown:
        return []
    return [f"unknown google-adk feature name(s) {', '.join(map(repr, unknown))}, ignored as adk eval ignores them; valid names: {', '.join(known)}"]
