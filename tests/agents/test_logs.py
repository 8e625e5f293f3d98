"""AgentLogs in one process: a record with a traceback reaches the log file, never a console,
by whichever path it comes; everything is put back afterwards (issue 22)."""

from __future__ import annotations

import io
import logging

import pytest

from agenteval_ci.agents.logs import AgentLogs


@pytest.fixture
def own_logger():
    """A library logger with its own console handler that does not propagate to the root."""
    stream = io.StringIO()
    logger = logging.getLogger("tests.agent_logs.vendor")
    handler = logging.StreamHandler(stream)
    logger.addHandler(handler)
    logger.propagate = False
    logger.setLevel(logging.DEBUG)
    yield logger, stream
    logger.removeHandler(handler)
    logger.propagate = True
    logger.setLevel(logging.NOTSET)


def fail(logger: logging.Logger) -> None:
    try:
        raise RuntimeError("the tool backend is down")
    except RuntimeError:
        logger.exception("tool failed")


def test_tracebacks_from_any_logger_and_level_go_to_the_file_once(tmp_path, own_logger):
    vendor, vendor_console = own_logger
    root_console = io.StringIO()
    root_handler = logging.StreamHandler(root_console)
    logging.getLogger().addHandler(root_handler)
    logs = AgentLogs("WARNING", tmp_path / "agent.log")
    try:
        logs.apply()
        fail(logging.getLogger("google_adk.runner"))  # propagates to the root's console
        fail(vendor)  # its own console only
        user = logging.getLogger("tests.agent_logs.user")
        user.setLevel(logging.INFO)  # the agent asked for INFO from its own logger
        user.info("quiet detail", stack_info=True)
        user.warning("visible warning")
        user.setLevel(logging.NOTSET)
        vendor.warning("vendor warning")
    finally:
        logs.restore()
        logging.getLogger().removeHandler(root_handler)
    console = root_console.getvalue() + vendor_console.getvalue()
    assert "Traceback" not in console and "tool failed" not in console and "quiet detail" not in console
    assert "visible warning" in console and "vendor warning" in console
    filed = (tmp_path / "agent.log").read_text()
    assert filed.count("tool failed") == 2 and filed.count("RuntimeError: the tool backend is down") == 2
    assert "quiet detail" in filed and "visible warning" not in filed
    assert logs.notice() == (f"agenteval: the agent logged 3 record(s) with a traceback: see {(tmp_path / 'agent.log').as_posix()} "
                             "(--log-level DEBUG shows them here)")
    assert not root_handler.filters and not vendor.handlers[0].filters  # put back


def test_debug_shows_tracebacks_on_the_console(tmp_path, own_logger):
    vendor, vendor_console = own_logger
    logs = AgentLogs("DEBUG", tmp_path / "agent.log")
    try:
        logs.apply()
        fail(vendor)
    finally:
        logs.restore()
    assert "RuntimeError: the tool backend is down" in vendor_console.getvalue()
    assert not (tmp_path / "agent.log").exists() and logs.notice() == ""


def test_with_no_handler_configured_warnings_still_show_but_not_tracebacks(tmp_path, capsys):
    root = logging.getLogger()
    kept = root.handlers[:]
    root.handlers.clear()  # as in a fresh process: Python's last-resort handler would print everything
    logs = AgentLogs("WARNING", tmp_path / "agent.log")
    try:
        logs.apply()
        fail(logging.getLogger("google_adk.runner"))
        logging.getLogger("google_adk.runner").warning("deprecated option")
    finally:
        logs.restore()
        root.handlers[:] = kept
    err = capsys.readouterr().err
    assert err == "WARNING google_adk.runner: deprecated option\n"
    assert "Traceback" in (tmp_path / "agent.log").read_text()


def test_a_run_empties_the_log_once_then_the_agents_records_follow_a_started_servers_output(tmp_path, own_logger):
    """A started agent server appends its output to the same file; the records logged in process
    afterwards must not truncate it (a server that failed to start would say "no output")."""
    vendor, _ = own_logger
    log = tmp_path / "agent.log"
    log.write_text("left by an earlier run\n")
    logs = AgentLogs("WARNING", log)
    logs.begin()
    with open(log, "ab") as server_output:  # what AgentProcess does with its server's output
        server_output.write(b"server: listening on 127.0.0.1:8080\n")
    try:
        logs.apply()
        fail(vendor)
    finally:
        logs.restore()
    text = log.read_text()
    assert "left by an earlier run" not in text
    assert text.startswith("server: listening on 127.0.0.1:8080\n")
    assert "RuntimeError: the tool backend is down" in text
