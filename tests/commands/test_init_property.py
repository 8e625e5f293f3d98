"""Whatever `init` writes loads (issue 24): for generated folder names (YAML's special words,
unicode, emoji, dots and pluses, glob characters, bytes that are not UTF-8) and layouts (nested
agents, eval sets beside the agent, below it or in the starter pack's tests/eval/, legacy files,
eval configs), init either writes an agenteval.yaml that `validate` accepts and `run` runs with
real, offline ADK agents, or refuses with exit 2 and writes nothing; and a layout it can
represent, it never refuses. Seeded and bounded: hypothesis derandomized, 30 examples."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fuzz_engine import load_engine

pytest.importorskip("google.adk", reason="google-adk (test extra) is not installed")

fuzz = load_engine()

_TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="/\x00"), min_size=1, max_size=20)
# One name in ten is bytes that are not UTF-8 (init must refuse it); the rest it must write.
NAMES = st.integers(0, 9).flatmap(lambda roll: (
    st.sampled_from(fuzz.NOT_UTF8) if roll == 0 else st.sampled_from(fuzz.ODD_NAMES) if roll < 6
    else _TEXT.filter(lambda n: n not in (".", "..") and len(n.encode()) < 100)))


@st.composite
def layouts(draw) -> object:
    agents: list[str] = []
    for _ in range(draw(st.integers(1, 3))):
        parent = draw(st.sampled_from([None, "agents", *agents]))
        name = draw(NAMES)
        path = f"{parent}/{name}" if parent else name
        if path not in agents:
            agents.append(path)
    evals = [
        (draw(st.sampled_from([agent, agent, f"{agent}/eval", "tests/eval/evalsets"])), draw(st.sampled_from(["evalset", "legacy", "old_format"])))
        for agent in agents
        for _ in range(draw(st.integers(0, 2)))
    ]
    config = draw(st.sampled_from([None, "test_config", "starter"]))
    return fuzz.InitLayout(agents, evals, config, oddities=[])


@settings(max_examples=30, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(layout=layouts())
def test_what_init_writes_validate_and_run_accept(layout, monkeypatch_env):
    with tempfile.TemporaryDirectory(prefix="agenteval-init-") as tmp:
        work = Path(tmp)
        (work / ".git").mkdir()  # the repository root: no search leaves the example
        root = work / "project"
        fuzz.write_layout(root, layout)
        tally = fuzz.Tally("init")
        with fuzz._modules_dropped_after(root):
            fuzz.check_init(root, layout, fuzz.in_process, tally)
        failures = [*tally.crashes, *tally.unloadable]
        assert not failures, f"{layout}\n" + "\n\n".join(f"agenteval {c.argv} -> {c.code}\n{c.stderr[-1500:]}" for c in failures)


@pytest.fixture(scope="module")
def monkeypatch_env():
    """Offline: no key, and the model endpoint a closed loopback port."""
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("GOOGLE_API_KEY", raising=False)
        patch.delenv("GEMINI_API_KEY", raising=False)
        patch.setenv("GOOGLE_GEMINI_BASE_URL", "http://127.0.0.1:9")
        yield
