"""ADK apps in other languages that `agenteval init` cannot import but can serve: ADK for Java
(Maven, Gradle), Go and TypeScript/JavaScript. Each serves ADK's HTTP API (docs/agents.md,
`kind: adk_api_server`) with a command of its SDK:

- Java: com.google.adk's dev server, `com.google.adk.web.AdkWebServer` (artifact google-adk-dev),
  `--adk.agents.source-dir=... --server.port=...`; with Gradle, through a JavaExec task that
  runs it (ADK's docs call it runADKWebServer);
- Go: the agent's own launcher (`full.NewLauncher()`), `go run . web -port N api`, which serves
  the API under /api;
- TypeScript/JavaScript: @google/adk-devtools' `adk api_server AGENT --host --port`;
- Python, when the project pins a google-adk that the action does not run agents on in-process
  (ACTION_GOOGLE_ADK; docs/action.md refuses such an install): google-adk's own
  `adk api_server --host --port AGENTS_DIR`, from a virtualenv of the project's own
  requirements (AGENT_VENV).

Read from the manifests and sources, never run; what init could not tell (the port, the app's
name, a missing dev-server dependency) becomes a check in its next steps.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shlex
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any

from .pins import Pin, pins
from .project_scan import source_text

MANIFESTS = ("pom.xml", "build.gradle", "build.gradle.kts", "go.mod", "package.json")
# The google-adk the action's image imports agents with (requirements-action.txt pins it).
ACTION_GOOGLE_ADK = "2.13.0"
# The virtualenv of a Python app's own requirements, beside agenteval.yaml (git-ignored).
AGENT_VENV = ".agenteval/agent-venv"
_MAX_MANIFEST_BYTES = 2_000_000


@dataclass(frozen=True)
class ServedProject:
    sdk: str  # "ADK for Java (Maven)"
    folder: str  # the project's folder, posix, relative to init's root ("." for the root)
    toolchain: str  # what CI sets up before starting it: java | go | node
    start: str
    url: str
    ready: str | None = None  # a path, when not the kind's default
    ready_timeout_seconds: int = 60  # the first start downloads and builds
    checks: tuple[str, ...] = ()  # what the user should check, for the next steps
    manifest: str = ""  # the file it was recognised by, relative to init's root
    cache: str = ""  # the dependency cache setup-java or setup-node keep (maven, gradle, npm)
    install: str = ""  # what CI runs in `folder` before starting it (npm ci)
    cwd: str | None = None  # where `start` runs, when not `folder`
    app_name: str | None = None  # the app the server serves, when init knows it
    traces: bool = False  # run the OTLP receiver: the judges read what only the agent's spans record
    made: str = ""  # what `install` makes (relative to where it runs), when init need not run it again once there

    @property
    def install_dir(self) -> str:
        """Where `install` runs, relative to init's root: where `start` does."""
        return self.folder if self.cwd is None else self.cwd

    def agent(self) -> dict[str, Any]:
        """The suite's `agent:` mapping, as docs/agents.md documents it."""
        mapping: dict[str, Any] = {"kind": "adk_api_server", "url": self.url, "start": self.start}
        cwd = self.folder if self.cwd is None else self.cwd
        if cwd != ".":
            mapping["cwd"] = cwd
        if self.app_name:
            mapping["app_name"] = self.app_name
        if self.traces:
            mapping["traces"] = True
        if self.ready:
            mapping["ready"] = self.ready
        mapping["ready_timeout_seconds"] = self.ready_timeout_seconds
        return mapping


def _text(path: Path) -> str:
    return source_text(path, _MAX_MANIFEST_BYTES)


def _rel(folder: PurePosixPath, name: str) -> str:
    return str(folder / name)


@dataclass
class _Found:
    root: Path
    folder: PurePosixPath  # relative to root
    files: list[str]  # names in the folder
    sources: list[str] = field(default_factory=list)  # source files below it, relative to root

    @property
    def where(self) -> str:
        return str(self.folder)

    def inside(self, source: str) -> PurePosixPath:
        """A source file's path relative to the project's folder."""
        return PurePosixPath(source).relative_to(self.folder)

    def read(self, name: str) -> str:
        return _text(self.root / self.folder / name)


def _java_maven(found: _Found) -> ServedProject | None:
    pom = found.read("pom.xml")
    if "com.google.adk" not in pom:
        return None
    maven = "./mvnw" if "mvnw" in found.files else "mvn"
    port = 8000
    source_dir = _java_source_dir(found)
    start = (f"{maven} -q compile exec:java -Dexec.mainClass=com.google.adk.web.AdkWebServer -Dexec.classpathScope=compile "
             f'-Dexec.args="--adk.agents.source-dir={source_dir} --server.port={port}"')
    checks = [f"the agents' sources are in {source_dir} (--adk.agents.source-dir)"]
    if "google-adk-dev" not in pom:
        checks.insert(0, "add the dependency com.google.adk:google-adk-dev to pom.xml: its AdkWebServer serves the API")
    return ServedProject("ADK for Java (Maven)", found.where, "java", start, f"http://127.0.0.1:{port}",
                         ready_timeout_seconds=600, checks=tuple(checks), manifest=_rel(found.folder, "pom.xml"), cache="maven")


_GRADLE_TASK = re.compile(r"""(?:tasks\.register|task)\s*\(?\s*["'](\w+)["']\s*,\s*JavaExec""")
_SERVER_PORT = re.compile(r"--server\.port=(\d+)")


def _java_gradle(found: _Found) -> ServedProject | None:
    name = "build.gradle.kts" if "build.gradle.kts" in found.files else "build.gradle"
    build = found.read(name)
    if "com.google.adk" not in build:
        return None
    gradle = "./gradlew" if "gradlew" in found.files else "gradle"
    tasks = [m[1] for m in _GRADLE_TASK.finditer(build)] if "AdkWebServer" in build else []
    task = tasks[0] if tasks else "runADKWebServer"
    port_match = _SERVER_PORT.search(build)
    port = int(port_match[1]) if port_match else 8080
    checks = [] if tasks else [f"add a JavaExec task {task} running com.google.adk.web.AdkWebServer with "
                               f"--adk.agents.source-dir and --server.port={port} to {name} (ADK's docs show it)"]
    if port_match is None and tasks:
        checks.append(f"the task {task} serves on port {port} (--server.port)")
    return ServedProject("ADK for Java (Gradle)", found.where, "java", f"{gradle} -q {task}", f"http://127.0.0.1:{port}",
                         ready_timeout_seconds=600, checks=tuple(checks), manifest=_rel(found.folder, name), cache="gradle")


def _java_source_dir(found: _Found) -> str:
    """The folder holding the agents' classes (those declaring ROOT_AGENT), else src/main/java."""
    holders = [found.inside(s) for s in found.sources if s.endswith(".java") and "ROOT_AGENT" in _text(found.root / s)]
    base = PurePosixPath("src/main/java")
    if not holders or all(base in h.parents for h in holders):
        return str(base)
    return str(holders[0].parent)


_GO_MAIN = re.compile(r"^package\s+main\b", re.M)


def _go(found: _Found) -> ServedProject | None:
    if "google.golang.org/adk" not in found.read("go.mod"):
        return None
    port = 8080
    mains = [s for s in found.sources if s.endswith(".go") and not s.endswith("_test.go")
             and _GO_MAIN.search(text := _text(found.root / s)) and "func main(" in text]
    package = "."
    checks = []
    if mains:
        inside = found.inside(mains[0]).parent
        package = "." if str(inside) == "." else f"./{inside}"
        if not any("launcher" in _text(found.root / m) for m in mains):
            checks.append(f"{mains[0]} runs ADK's launcher (full.NewLauncher()), whose `web ... api` serves the API")
    else:
        checks.append("no `package main` with func main() found: point `start` at the one that runs ADK's launcher")
    return ServedProject("ADK for Go", found.where, "go", f"go run {package} web -port {port} api", f"http://127.0.0.1:{port}/api",
                         ready="/api/list-apps", ready_timeout_seconds=300, checks=tuple(checks), manifest=_rel(found.folder, "go.mod"))


_ROOT_AGENT = re.compile(r"export\s+(?:const|let|var)\s+rootAgent\b|exports\.rootAgent\s*=")
_JS_SOURCE = (".ts", ".mts", ".js", ".mjs", ".cjs")


def _node(found: _Found) -> ServedProject | None:
    try:
        package = json.loads(found.read("package.json") or "{}")
    except ValueError:
        return None
    if not isinstance(package, dict):
        return None
    deps = {name for key in ("dependencies", "devDependencies") if isinstance(package.get(key), dict) for name in package[key]}
    if "@google/adk" not in deps:
        return None
    port = 8000
    agents = [s for s in found.sources if s.endswith(_JS_SOURCE) and _ROOT_AGENT.search(_text(found.root / s))]
    agent = "."
    checks = []
    if agents:
        agent = str(found.inside(agents[0]))
    else:
        checks.append("no file exporting rootAgent found: name the agent file or folder in `start` (adk api_server AGENT)")
    if "@google/adk-devtools" not in deps:
        checks.insert(0, "add @google/adk-devtools to devDependencies: its `adk api_server` serves the API")
    locked = "package-lock.json" in found.files
    install = "npm ci" if locked else "npm install"
    if not (found.root / found.folder / "node_modules" / ".bin" / "adk").exists():  # npx would look for a package `adk`
        checks.append(f"run `{install}` before `agenteval run` on this machine, so that `npx adk` is "
                      "@google/adk-devtools' (the workflow runs it in CI)")
    return ServedProject("ADK for TypeScript/JavaScript", found.where, "node", f"npx adk api_server {agent} --host 127.0.0.1 --port {port}",
                         f"http://127.0.0.1:{port}", ready_timeout_seconds=120, checks=tuple(checks),
                         manifest=_rel(found.folder, "package.json"), cache="npm" if locked else "",
                         install=install)


_BY_MANIFEST = {"pom.xml": _java_maven, "build.gradle": _java_gradle, "build.gradle.kts": _java_gradle, "go.mod": _go,
                "package.json": _node}


def served_project(root: Path, folder: PurePosixPath, files: list[str], sources: list[str]) -> ServedProject | None:
    """The ADK app a folder's manifest describes, if any (`sources`: the source files below it)."""
    found = _Found(root, folder, files, sources)
    for manifest in MANIFESTS:
        if manifest in files:
            project = _BY_MANIFEST[manifest](found)
            if project is not None:
                return project
    return None


# ---------------------------------------------------------------- Python, pinned elsewhere


def pinned_elsewhere(root: Path) -> Pin | None:
    """The first of the project's google-adk pins (in any packaging style: files/pins.py) that
    excludes the version the action runs agents on; None when none does, or when `packaging`
    (google-adk's own dependency) is not installed to tell."""
    if importlib.util.find_spec("packaging") is None:
        return None
    return next((pin for pin in pins(root, "google-adk") if not pin.admits(ACTION_GOOGLE_ADK)), None)


def python_served(agent: str, pin: Pin, install: str, port: int = 8000) -> ServedProject:
    """A Python agent folder served by google-adk's `adk api_server` from its own virtualenv."""
    path = PurePosixPath(agent)
    setup = agent_venv_command(install or "pip install " + shlex.quote(pin.requirement))
    checks = (f"{pin.file} asks for {pin.written}, which excludes the google-adk {ACTION_GOOGLE_ADK} the action imports agents "
              f"with, so the agent runs in a virtualenv of its own requirements under `adk api_server`; to run it inside "
              f"the action instead, widen that pin to admit {ACTION_GOOGLE_ADK}",
              f"its virtualenv, made by `agenteval init` before its first run here and by the workflow in CI: {setup}")
    return ServedProject("ADK for Python (its own google-adk)", agent, "python",
                         f"{AGENT_VENV}/bin/adk api_server --host 127.0.0.1 --port {port} {path.parent}",
                         f"http://127.0.0.1:{port}", ready_timeout_seconds=120, checks=checks, manifest=pin.file,
                         install=setup, cwd=".", app_name=path.name, made=f"{AGENT_VENV}/bin/adk")


def agent_venv_command(install: str) -> str:
    """The line that makes the agent's own virtualenv: the workflow's step, and init's on this machine."""
    return f"python3 -m venv {AGENT_VENV} && . {AGENT_VENV}/bin/activate && {install}"


# google-adk exports its spans to OTEL_EXPORTER_OTLP_* only with this package, which it does not
# require (its `otel` extra does). Installed when the import fails, at the version of the
# OpenTelemetry SDK google-adk pinned, so that nothing the project resolved is moved. In
# parentheses: after `&&`, a bare `||` would also run (and succeed) when the install before failed.
OTLP_EXPORTER = "opentelemetry-exporter-otlp-proto-http"
_INSTALL_EXPORTER = ('(python -c "import opentelemetry.exporter.otlp.proto.http" 2>/dev/null || pip install '
                     f'{OTLP_EXPORTER} "opentelemetry-sdk==$(python -c "from importlib.metadata import version; '
                     'print(version(\'opentelemetry-sdk\'))")")')


def with_traces(project: ServedProject) -> ServedProject:
    """A Python app served with `traces: true`, its virtualenv given the OTLP exporter; an app in
    another language as it is (whether its SDK exports spans is not known here)."""
    if project.toolchain != "python" or project.traces:
        return project
    install = f"{project.install} && {_INSTALL_EXPORTER}"
    checks = tuple(check.replace(project.install, install) for check in project.checks)
    why = (f"the judged metrics read the agent's instructions and tool declarations, which `adk api_server` reports only in "
           f"its spans: `traces: true` receives them, and the virtualenv gets {OTLP_EXPORTER} to send them")
    return replace(project, traces=True, install=install, checks=(*checks, why))
