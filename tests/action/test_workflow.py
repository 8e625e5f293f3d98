"""The Actions runtime helpers: inputs, outputs, annotations, untrusted text, settings."""

from __future__ import annotations

import io

import pytest

from agenteval_ci.action.inputs import settings_from_env
from agenteval_ci.action.workflow import MAX_ERROR_ANNOTATIONS, Runner, input_flag
from agenteval_ci.errors import UsageError

from .harness import parse_outputs


def test_inputs_keep_hyphens_and_the_token_stays_out_of_repr(tmp_path):
    env = {"INPUT_GITHUB-TOKEN": "ghs_topsecret", "INPUT_FAIL-ON": "never", "INPUT_SUITE": "home",
           "GITHUB_EVENT_NAME": "pull_request", "GITHUB_WORKSPACE": str(tmp_path)}
    settings = settings_from_env(env)
    assert settings.token == "ghs_topsecret" and settings.fail_on == "never" and settings.mode == "run"
    assert settings.check_name == "agenteval (home)" and "ghs_topsecret" not in repr(settings)


def test_auto_mode_follows_the_event(tmp_path):
    def mode(event):
        return settings_from_env({"GITHUB_EVENT_NAME": event, "GITHUB_WORKSPACE": str(tmp_path)}).mode
    assert [mode("workflow_run"), mode("issue_comment"), mode("push")] == ["publish", "accept", "run"]
    with pytest.raises(UsageError, match="does not know the event 'release'"):
        mode("release")


def test_app_login_must_be_a_bot_login(tmp_path):
    env = {"GITHUB_EVENT_NAME": "push", "GITHUB_WORKSPACE": str(tmp_path)}
    assert settings_from_env(env).app_login is None
    assert settings_from_env({**env, "INPUT_APP-LOGIN": "agenteval-app[bot]"}).app_login == "agenteval-app[bot]"
    with pytest.raises(UsageError, match=r"'app-login' must be a GitHub App's bot login such as my-app\[bot\], not 'mallory'"):
        settings_from_env({**env, "INPUT_APP-LOGIN": "mallory"})


def test_flags_accept_true_and_false_only():
    assert input_flag({"INPUT_COMMENT": "False"}, "comment", True) is False
    with pytest.raises(UsageError, match="'comment' must be true or false"):
        input_flag({"INPUT_COMMENT": "maybe"}, "comment", True)


def test_multiline_outputs_survive_the_delimiter_format(tmp_path):
    out = tmp_path / "out"
    runner = Runner({"GITHUB_OUTPUT": str(out)})
    runner.set_output("verdict", "failed")
    runner.set_output("note", "line one\nEOF\nline three")
    assert parse_outputs(out) == {"verdict": "failed", "note": "line one\nEOF\nline three"}


def test_error_annotations_stop_at_githubs_limit_and_escape_properties():
    stream = io.StringIO()
    runner = Runner({}, stream)
    emitted = [runner.error("broke\nbadly", file="a,b.json", line=3) for _ in range(MAX_ERROR_ANNOTATIONS + 2)]
    assert emitted.count(True) == MAX_ERROR_ANNOTATIONS and emitted[-1] is False
    assert stream.getvalue().splitlines()[0] == "::error file=a%2Cb.json,line=3::broke%0Abadly"


def test_untrusted_text_cannot_issue_workflow_commands():
    stream = io.StringIO()
    Runner({}, stream).log_untrusted("::set-output name=verdict::passed")
    first, text, last = stream.getvalue().splitlines()
    token = first.removeprefix("::stop-commands::")
    assert len(token) == 32 and text == "::set-output name=verdict::passed" and last == f"::{token}::"


@pytest.mark.parametrize("mode", ["auto", "run", "merge", "publish", "accept"])
def test_pull_request_target_is_refused_in_every_mode_before_its_payload_is_read(tmp_path, mode):
    event = tmp_path / "event.json"
    event.write_text("[not the payload]")
    env = {"GITHUB_EVENT_NAME": "pull_request_target", "GITHUB_EVENT_PATH": str(event), "GITHUB_WORKSPACE": str(tmp_path),
           "INPUT_MODE": mode}
    with pytest.raises(UsageError, match="does not run on pull_request_target: .* write token") as refused:
        settings_from_env(env)
    assert refused.value.exit_code == 2
