"""`agenteval init [FOLDER] [--force] [--no-run]`: from an ADK project to a gated repository.

Looks at the layout (ADK agent folders, eval sets, eval configs, how dependencies are
installed), writes agenteval.yaml, the gate and accept workflows and a .gitignore line for
the results file, runs the suites once and accepts the results as the first baseline,
then says what to commit. Run again, it changes nothing: an existing file is kept unless
`--force`, and an existing baseline is never re-run or replaced without it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path, PurePosixPath
from string import Template

from ..adaptive import FIRST_BASELINE_RUNS
from ..agent_logs import LOG_FILE
from ..discovery import ADK_CONFIG_NAME, CONFIG_NAMES, STARTER_CONFIG_NAME
from ..errors import EXIT_PASSED, AgentevalError, UsageError
from ..schema.project import DEFAULT_BASELINE, DEFAULT_PROJECT_FILE, DEFAULT_RESULTS
from ..schema.settings import JudgeSettings

GATE_WORKFLOW = ".github/workflows/agenteval.yml"
ACCEPT_WORKFLOW = ".github/workflows/agenteval-accept.yml"
# Folders never searched: virtualenvs, caches, installed packages, VCS data.
_SKIPPED = {"node_modules", "site-packages", "__pycache__", "venv", "env", "build", "dist"}
_MAX_DEPTH = 6
_AGENT_DEFINITION = re.compile(r"^\s*(root_agent\s*[:=]|app\s*[:=]\s*App\(|(async\s+)?def\s+get_agent_async\b)", re.M)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("folder", nargs="?", default=".", help="the project's root folder (default: the current folder)")
    parser.add_argument("--force", action="store_true", help="overwrite files agenteval wrote before, and re-run to replace the baseline")
    parser.add_argument("--no-run", action="store_true", help="write the files only; run and accept later (`agenteval run --new-baseline && agenteval accept`)")


# ---------------------------------------------------------------- the layout


@dataclass
class Layout:
    root: Path
    agents: list[str] = field(default_factory=list)  # ADK agent folders, relative posix paths
    eval_files: list[str] = field(default_factory=list)  # *.evalset.json and *.test.json
    legacy_files: list[str] = field(default_factory=list)  # the .test.json files in ADK's old list format
    configs: list[str] = field(default_factory=list)  # test_config.json / eval_config.json
    install: str = ""

    def eval_sets_of(self, agent: str) -> list[str]:
        """Eval files inside the agent's folder; with one agent, every eval file."""
        if len(self.agents) == 1:
            return self.eval_files
        return [f for f in self.eval_files if f.startswith(agent + "/")]


def _walk(root: Path):
    """(folder relative to root, file names) for every folder worth searching."""
    for folder, dirs, files in os.walk(root):
        depth = len(Path(folder).relative_to(root).parts)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIPPED and depth < _MAX_DEPTH
                         and not (Path(folder) / d / "pyvenv.cfg").exists())
        yield Path(folder).relative_to(root), sorted(files)


def _defines_agent(folder: Path, files: list[str]) -> bool:
    candidates = [folder / name for name in ("agent.py", "__init__.py") if name in files]
    return "__init__.py" in files and any(_AGENT_DEFINITION.search(_text(p)) for p in candidates)


def _text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _is_legacy(path: Path) -> bool:
    try:
        return isinstance(json.loads(_text(path)), list)
    except ValueError:
        return False


def install_command(root: Path) -> str:
    """How CI installs the agent's dependencies, from what the project already has."""
    if (root / "uv.lock").is_file():
        return ("pip install uv && uv export --frozen --no-hashes -o /tmp/agenteval-requirements.txt"
                " && pip install -r /tmp/agenteval-requirements.txt")
    if (root / "requirements.txt").is_file():
        return "pip install -r requirements.txt"
    if (root / "pyproject.toml").is_file():
        return "pip install -e ."
    return ""


def detect(root: Path) -> Layout:
    layout = Layout(root, install=install_command(root))
    for folder, files in _walk(root):
        posix = PurePosixPath(*folder.parts)
        if folder.parts and _defines_agent(root / folder, files):
            layout.agents.append(str(posix))
        for name in files:
            rel = str(posix / name)
            if name.endswith((".evalset.json", ".test.json")):
                layout.eval_files.append(rel)
                if name.endswith(".test.json") and _is_legacy(root / rel):
                    layout.legacy_files.append(rel)
            elif name in CONFIG_NAMES:
                layout.configs.append(rel)
    return layout


# ---------------------------------------------------------------- the files


def _globs(files: list[str]) -> list[str]:
    """One glob per folder and kind, so eval sets added later are picked up."""
    globs = []
    for path in files:
        pure = PurePosixPath(path)
        kind = "*.evalset.json" if pure.name.endswith(".evalset.json") else "*.test.json"
        glob = str(pure.parent / kind) if str(pure.parent) != "." else kind
        if glob not in globs:
            globs.append(glob)
    return globs


def _shared_config(layout: Layout) -> str | None:
    """The starter pack's one eval_config.json, named when no test_config.json sits beside an eval set."""
    starter = [c for c in layout.configs if PurePosixPath(c).name == STARTER_CONFIG_NAME]
    if len(starter) == 1 and not any(PurePosixPath(c).name == ADK_CONFIG_NAME for c in layout.configs):
        return starter[0]
    return None


def project_yaml(layout: Layout) -> str:
    if not layout.agents:
        raise UsageError(f"no ADK agent folder under {layout.root.as_posix()} (a folder with __init__.py and an agent.py "
                         "defining root_agent); write agenteval.yaml by hand, see docs/config.md")
    if not layout.eval_files:
        raise UsageError(f"no eval sets (*.evalset.json or *.test.json) under {layout.root.as_posix()}; "
                         "record some with `adk web` or write them by hand, then run `agenteval init` again")
    config = _shared_config(layout)
    lines = ["# Written by `agenteval init`; every key is in docs/config.md.", f"baseline: {DEFAULT_BASELINE}", "suites:"]
    for agent in layout.agents:
        eval_sets = layout.eval_sets_of(agent)
        if not eval_sets:
            continue
        lines += [f"  - name: {_suite_name(agent, layout)}", f"    agent: {agent}",
                  "    eval_sets:", *(f"      - {json.dumps(g)}" for g in _globs(eval_sets))]
        if config:
            lines.append(f"    eval_config: {config}")
    if lines[-1] == "suites:":
        raise UsageError("found agents (" + ", ".join(layout.agents) + ") and eval sets, but no eval set inside an agent's folder; "
                         "with several agents, say which eval sets each runs in agenteval.yaml (docs/config.md)")
    return "\n".join(lines) + "\n"


def _suite_name(agent: str, layout: Layout) -> str:
    return "default" if len(layout.agents) == 1 else re.sub(r"[^A-Za-z0-9_-]", "_", agent)


def _yaml_scalar(value: str) -> str:
    plain = value and not re.search(r"(: | #|^[\s\"'&*!|>%@`{\[-])", value)
    return value if plain else json.dumps(value)


def workflow(name: str, config: str, install: str) -> str:
    """A workflow from the templates docs/workflows/pr-gate.yml and accept.yml are copies of."""
    text = resources.files("agenteval_ci").joinpath("workflow_templates", name).read_text(encoding="utf-8")
    cache_dir = str(PurePosixPath(config).parent / JudgeSettings().cache_dir).removeprefix("./")
    rendered = Template(text).substitute(config=config, install=_yaml_scalar(install), cache_dir=cache_dir)
    return rendered if install else rendered.replace("          install: \"\"\n", "")


# ---------------------------------------------------------------- writing


@dataclass
class Writer:
    root: Path
    force: bool
    written: list[str] = field(default_factory=list)

    def write(self, rel: str, text: str) -> None:
        path = self.root / rel
        if path.is_file() and path.read_text(encoding="utf-8") == text:
            print(f"unchanged {rel}")
            return
        if path.exists() and not self.force:
            print(f"kept      {rel} (it exists; --force replaces it)")
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        self.written.append(rel)
        print(f"wrote     {rel}")

    def ignore(self, line: str) -> None:
        """Add a line to .gitignore unless it is there."""
        path = self.root / ".gitignore"
        text = _text(path) if path.is_file() else ""
        if line in text.splitlines():
            print(f"unchanged .gitignore (already ignores {line})")
            return
        path.write_text(text + ("" if not text or text.endswith("\n") else "\n") + line + "\n", encoding="utf-8")
        self.written.append(".gitignore")
        print(f"wrote     .gitignore (ignores {line}, what `agenteval run` writes)")


def _first_baseline(root: Path) -> None:
    """Run the suites for a new baseline and accept the results, as a user would type it."""
    from ..cli import dispatch

    config = str(root / DEFAULT_PROJECT_FILE)
    print(f"\nrunning the suites for a first baseline (every case {FIRST_BASELINE_RUNS} times, to tell flaky cases from "
          f"deterministic ones; docs/baseline.md): agenteval run --config {config} --new-baseline", flush=True)
    code = dispatch(["run", "--config", config, "--new-baseline"])
    try:
        dispatch(["accept", "--config", config])
    except AgentevalError as exc:
        print(f"\nno baseline written: {exc}\nfix that, then: agenteval run --new-baseline && agenteval accept")
        return
    if code != EXIT_PASSED:
        print("some cases are below their thresholds today; the baseline keeps them as they are, and the gate "
              "fails a PR when a case gets worse or newly falls below its threshold")


def _cd(root: Path) -> str:
    return "" if root.resolve() == Path.cwd().resolve() else f"cd {shlex.quote(root.as_posix())} && "


def next_steps(layout: Layout, files: list[str]) -> str:
    files = [f for f in files if (layout.root / f).exists()]
    legacy = ""
    if layout.legacy_files:
        legacy = (f"\n{len(layout.legacy_files)} eval file(s) use ADK's legacy .test.json format ({', '.join(layout.legacy_files[:3])}"
                  f"{', ...' if len(layout.legacy_files) > 3 else ''}): `agenteval convert` turns them into EvalSets, "
                  "with the initial session they need.\n")
    return f"""{legacy}
next steps:
  1. commit:  {_cd(layout.root)}git add {' '.join(files)} && git commit -m "Gate the agent with agenteval"
  2. secret:  add GOOGLE_API_KEY under Settings > Secrets and variables > Actions (the agent and the judges use it)
  3. require: Settings > Branches > add a branch protection rule (or a ruleset) for main >
              "Require status checks to pass" > add the check "agenteval"
  then every PR gets a comment and the check; a maintainer comments `/agenteval accept` to take intended changes."""


def run(args: argparse.Namespace) -> int:
    root = Path(args.folder)
    if not root.is_dir():
        raise UsageError(f"{args.folder}: no such folder")
    layout = detect(root)
    print(f"found: {len(layout.agents)} ADK agent(s) ({', '.join(layout.agents) or 'none'}), {len(layout.eval_files)} eval file(s), "
          f"{len(layout.configs)} eval config(s); install: {layout.install or 'nothing (no requirements.txt, pyproject.toml or uv.lock)'}")
    writer = Writer(root, args.force)
    if (root / DEFAULT_PROJECT_FILE).is_file() and not args.force:
        print(f"kept      {DEFAULT_PROJECT_FILE} (it exists; --force replaces it)")
    else:
        writer.write(DEFAULT_PROJECT_FILE, project_yaml(layout))
    writer.write(GATE_WORKFLOW, workflow("gate.yml", DEFAULT_PROJECT_FILE, layout.install))
    writer.write(ACCEPT_WORKFLOW, workflow("accept.yml", DEFAULT_PROJECT_FILE, layout.install))
    for generated in (DEFAULT_RESULTS, LOG_FILE.as_posix()):
        writer.ignore(f"/{generated}")
    if args.no_run:
        print("\nnot run (--no-run): `agenteval run --new-baseline && agenteval accept` writes the first baseline")
    elif (root / DEFAULT_BASELINE).is_file() and not args.force:
        print(f"\nkept      {DEFAULT_BASELINE} (it exists; `agenteval run` checks against it, --force replaces it)")
    else:
        _first_baseline(root)
    print(next_steps(layout, [DEFAULT_PROJECT_FILE, ".gitignore", GATE_WORKFLOW, ACCEPT_WORKFLOW, DEFAULT_BASELINE]))
    return EXIT_PASSED
