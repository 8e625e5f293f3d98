"""Case labels (`suite / eval_set / case`) and the words that lead a case in every report."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from agenteval_ci.core.selection import case_names, pattern_matches
from agenteval_ci.schema import Outcome, Status
from agenteval_ci.schema.labels import case_labels, label, short_name
from agenteval_ci.schema.vocabulary import case_words


@dataclass(frozen=True)
class Named:
    suite: str
    eval_set_id: str
    eval_id: str

    @property
    def key(self) -> str:
        return f"{self.suite}/{self.eval_set_id}/{self.eval_id}"


@pytest.mark.parametrize("name, shown", [
    ("home", "home"),
    ("orders/refund", "orders/refund"),  # a slash alone is no path: ids may hold one
    ("eval/data/simple.test.json", "simple"),
    ("tests/eval/evalsets/hours.evalset.json", "hours"),
    ("/usr/local/google/home/gkcng/adk-samples/travel-concierge/eval/data/intrip.test.json", "intrip"),
    ("C:\\Users\\me\\evals\\trip.json", "trip"),
    ("a554f356-c2b0-4b18-94cb-479d98b3192f", "a554f356-c2b0-4b18-94cb-479d98b3192f"),
    (".json", ".json"),
])
def test_a_path_is_shown_as_its_files_name(name, shown):
    assert short_name(name) == shown


def test_a_legacy_file_is_named_once_and_an_authors_path_not_at_all():
    assert label("default", "eval/data/simple.test.json", "eval/data/simple.test.json") == "default / simple"
    assert label("default", "home", "lights") == "default / home / lights"
    assert label("travel", "a554f356", "/usr/local/home/author/eval/data/intrip.test.json") == "travel / a554f356 / intrip"


def test_cases_that_would_read_the_same_get_their_folders_back():
    """ADK's own fixtures hold simple_test.test.json in two folders of one agent."""
    cases = [Named("default", p, p) for p in ("fixture/home/simple_test.test.json", "fixture/home/test_files/simple_test.test.json",
                                             "fixture/home/simple_test2.test.json")]
    assert list(case_labels(cases).values()) == ["default / home/simple_test", "default / test_files/simple_test", "default / simple_test2"]
    same_id = [Named("default", "a", "x"), Named("default", "b", "x")]
    assert list(case_labels(same_id).values()) == ["default / a / x", "default / b / x"]


def test_a_case_is_selected_and_accepted_by_the_name_reports_show():
    names = case_names("default", "eval/data/simple.test.json", "eval/data/simple.test.json")
    assert "simple" in names and names[-1] == "default/eval/data/simple.test.json/eval/data/simple.test.json"
    assert pattern_matches("simp*", "default", "eval/data/simple.test.json", "eval/data/simple.test.json")


@pytest.mark.parametrize("outcome, status, words", [
    (Outcome.REGRESSED, Status.PASSED, "REGRESSED"),  # never `PASS ... regressed`
    (Outcome.REGRESSED, Status.FAILED, "REGRESSED"),
    (Outcome.NEWLY_FAILING, Status.FAILED, "NEWLY FAILING"),
    (Outcome.FIXED, Status.PASSED, "FIXED"),
    (Outcome.IMPROVED, Status.FAILED, "IMPROVED"),
    (Outcome.NEW, Status.FAILED, "NEW (FAIL)"),  # nothing to compare with: the status is the news
    (Outcome.INCOMPARABLE, Status.PASSED, "INCOMPARABLE (PASS)"),
    (Outcome.REMOVED, None, "REMOVED"),
    (Outcome.UNCHANGED, Status.FAILED, "FAIL"),
    (None, Status.PASSED, "PASS"),
    (None, Status.NOT_EVALUATED, "N/E"),
])
def test_the_outcome_word_leads_and_no_status_contradicts_it(outcome, status, words):
    assert case_words(outcome, status)[0] == words
