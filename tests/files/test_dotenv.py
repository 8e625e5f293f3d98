"""The agent's `.env` is loaded as `adk eval` loads it (files/dotenv.py)."""

from __future__ import annotations

import os

import pytest

from agenteval_ci.errors import InputError
from agenteval_ci.files.dotenv import find_dotenv, load_agent_dotenv


def test_the_walk_finds_the_nearest_env_and_stops_at_the_repository_root(tmp_path):
    (tmp_path / ".env").write_text("ABOVE=1\n")
    repo = tmp_path / "repo"
    agent = repo / "agents" / "shop"
    agent.mkdir(parents=True)
    (repo / ".git").mkdir()
    assert find_dotenv(agent) is None  # the .env above the repository is not the project's
    (repo / ".env").write_text("ROOT=1\n")
    assert find_dotenv(agent) == (repo / ".env").resolve()
    (agent / ".env").write_text("NEAR=1\n")
    assert find_dotenv(agent) == (agent / ".env").resolve()


def test_set_variables_win_and_a_later_env_overrides_an_earlier_one(tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    for folder in (first, second):
        folder.mkdir()
    (tmp_path / ".git").mkdir()
    (first / ".env").write_text("export KEY='from a'\nSHARED=a\nSET=from-a # a comment\nEMPTY=\n")
    (second / ".env").write_text('SHARED="b"\nMULTI="line one\nline two"\nBARE\n')
    environ = {"SET": "explicit"}
    loaded = load_agent_dotenv([first, second, first], environ)
    assert environ == {"SET": "explicit", "KEY": "from a", "SHARED": "b", "EMPTY": "", "MULTI": "line one\nline two"}
    assert loaded == {(first / ".env").resolve(): ["KEY", "SHARED", "EMPTY"], (second / ".env").resolve(): ["SHARED", "MULTI"]}


def test_adk_s_switch_turns_it_off(tmp_path):
    (tmp_path / ".env").write_text("KEY=1\n")
    environ = {"ADK_DISABLE_LOAD_DOTENV": "True"}
    assert load_agent_dotenv([tmp_path], environ) == {} and environ == {"ADK_DISABLE_LOAD_DOTENV": "True"}


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_named_env_is_not_read(tmp_path):
    (tmp_path / ".git").mkdir()
    os.mkfifo(tmp_path / ".env")
    assert load_agent_dotenv([tmp_path], {}) == {}  # would block forever if opened


def test_an_unreadable_env_names_the_file(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".env").write_bytes(b"KEY=\xff\xfe\n")
    with pytest.raises(InputError, match=r"\.env: cannot read the agent's \.env"):
        load_agent_dotenv([tmp_path], {})
