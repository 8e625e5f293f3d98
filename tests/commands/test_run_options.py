"""`agenteval run` for a person at a terminal: `-k`, `--num-runs`, `--quiet`, `--log-level`,
colour and the cases that changed, through the real process."""

from __future__ import annotations

import json
from pathlib import Path

from tests.commands.test_fail_closed import agenteval, project  # noqa: F401 (a fixture)

NOISY_AGENT = '''
import logging
logging.basicConfig(level=logging.DEBUG)  # as google/adk-samples' customer-service agent does
log = logging.getLogger("vendor.client")

def agent(text, session):
    for i in range(300):
        log.debug("request dump %d for %s", i, text)
    log.warning("slow backend")
    return {"response": f"echo {text}", "tool_calls": [{"name": "lookup", "args": {"q": text}}]}
'''


def test_k_runs_the_matching_cases_and_a_pattern_matching_nothing_is_exit_2(project):  # noqa: F811
    done = agenteval(project, "run", "-k", "C1", "--case", "set_a/c[34]", "--json", "r.json")
    assert done.returncode == 0, done.stderr
    results = json.loads((project / "r.json").read_text())
    assert [c["eval_id"] for c in results["cases"]] == ["c1", "c3", "c4"]
    assert results["case_filter"] == ["C1", "set_a/c[34]"]
    assert "removed" not in done.stdout  # the cases left out are not "removed" from the baseline
    typo = agenteval(project, "run", "-k", "c1", "-k", "nope*")
    assert typo.returncode == 2
    assert "-k/--case 'nope*' matches none of the 5 case(s)" in typo.stderr


def test_accepting_a_k_run_keeps_the_other_cases_of_the_baseline(project):  # noqa: F811
    assert agenteval(project, "run", "-k", "c2", "--json", "r.json").returncode == 0
    assert agenteval(project, "accept", "r.json").returncode == 0
    baseline = json.loads((project / ".agenteval" / "baseline.json").read_text())
    assert sorted(baseline["suites"]["default"]["set_a"]) == ["c0", "c1", "c2", "c3", "c4"]


def test_accepting_one_shard_keeps_the_other_shards_cases(project):  # noqa: F811
    assert agenteval(project, "run", "--shard", "1/2", "--json", "s.json").returncode == 0
    shard = [c["eval_id"] for c in json.loads((project / "s.json").read_text())["cases"]]
    assert 0 < len(shard) < 5
    assert agenteval(project, "accept", "s.json").returncode == 0
    baseline = json.loads((project / ".agenteval" / "baseline.json").read_text())
    assert sorted(baseline["suites"]["default"]["set_a"]) == ["c0", "c1", "c2", "c3", "c4"]


def test_num_runs_overrides_the_suites(project):  # noqa: F811
    assert agenteval(project, "run", "-k", "c0", "--num-runs", "3", "--json", "r.json").returncode == 0
    results = json.loads((project / "r.json").read_text())
    assert results["num_runs"] == 3 and len(results["cases"][0]["runs"]) == 3
    done = agenteval(project, "run", "--num-runs", "0")
    assert done.returncode == 2 and "--num-runs must be 1-100, got 0" in done.stderr


def test_the_agents_debug_logging_goes_to_a_file_not_the_terminal(project):  # noqa: F811
    (project / "agent.py").write_text(NOISY_AGENT)
    done = agenteval(project, "run")
    assert done.returncode == 0, done.stderr
    assert "request dump" not in done.stderr and "request dump" not in done.stdout
    assert done.stderr.count("WARNING:vendor.client:slow backend") == 5  # warnings still show
    log = project / ".agenteval" / "agent.log"
    assert "agenteval: the agent logged 1,5" in done.stderr and f"see {log.relative_to(project)}" in done.stderr
    assert log.read_text().count("request dump") == 1500
    shown = agenteval(project, "run", "--log-level", "debug")
    assert shown.stderr.count("request dump") == 1500
    quiet = agenteval(project, "run", "-q")
    assert "slow backend" not in quiet.stderr and "ran 5 case(s)" not in quiet.stderr
    assert quiet.stdout.startswith("baseline .agenteval/baseline.json: gate passed")
    assert "PASS" not in quiet.stdout


def test_a_regression_is_named_and_coloured_only_when_asked(project):  # noqa: F811
    plain = agenteval(project, "run", env={"BREAK": "worse"})
    assert plain.returncode == 1
    assert "REGRESSED  default / set_a / c1\n" in plain.stdout
    assert "changes from the baseline:\n  REGRESSED (1)\n    default / set_a / c1\n        response_match_score  1.000 → " in plain.stdout
    assert "\x1b[" not in plain.stdout  # not a terminal: no colour
    forced = agenteval(project, "run", env={"BREAK": "worse", "FORCE_COLOR": "1"})
    assert "\x1b[31mgate failed\x1b[0m" in forced.stdout and "\x1b[31mREGRESSED \x1b[0m default / set_a / c1" in forced.stdout
    assert "\x1b[" not in agenteval(project, "run", env={"BREAK": "worse", "FORCE_COLOR": "1", "NO_COLOR": "1"}).stdout
    compared = agenteval(project, "run", "--no-gate", "--json", "r.json", env={"BREAK": "worse"})
    assert compared.returncode == 1
    done = agenteval(project, "compare", "r.json")
    assert "REGRESSED (1)\n    default / set_a / c1" in done.stdout


def test_detailed_alias_shows_each_turn(project: Path):  # noqa: F811
    done = agenteval(project, "run", "-k", "c0", "--detailed")
    assert done.returncode == 0, done.stderr
    assert "prompt:" in done.stdout and "expected_tool_calls:" in done.stdout
    assert "per turn: []" not in done.stdout


def test_a_corrupt_baseline_is_exit_2_after_the_table(project: Path):  # noqa: F811
    (project / ".agenteval" / "baseline.json").write_text("{not json")
    done = agenteval(project, "run", "-k", "c0")
    assert done.returncode == 2 and "baseline.json" in done.stderr
    assert "PASS  default / set_a / c0" in done.stdout


def test_a_real_adk_agent_logging_debug_at_import_does_not_bury_the_output(tmp_path):
    """google-adk and google-genai log every request at DEBUG once the agent asks for it."""
    import shutil

    from tests.agents.test_adk_agent import AGENT_DIR, EVAL_SET, travel_model
    from tests.fakes.gemini import FakeGemini

    agent = tmp_path / "travel"
    shutil.copytree(AGENT_DIR, agent)
    init = agent / "__init__.py"
    init.write_text("import logging\nlogging.basicConfig(level=logging.DEBUG)\n" + init.read_text())
    with FakeGemini(responder=travel_model) as fake:
        done = agenteval(tmp_path, "run", "travel", str(EVAL_SET), env=fake.env(), timeout=180)
    assert done.returncode == 0, done.stdout + done.stderr
    log = (tmp_path / ".agenteval" / "agent.log").read_text()
    assert "DEBUG" in log and "google_adk" in log
    assert "DEBUG:" not in done.stderr and "google_adk" not in done.stderr, done.stderr
    assert "see .agenteval/agent.log" in done.stderr and "Tests passed: 1" in done.stdout
