"""YAML keys that are not strings (a bare `yes:` is a boolean, `1:` a number) are read, not a
crash: the guarded reader checked every key for lone surrogates as if it were text."""

from __future__ import annotations

from agenteval_ci.cli import main


def test_a_boolean_key_in_agenteval_yaml_is_a_clear_error_not_a_crash(tmp_path, capsys):
    config = tmp_path / "agenteval.yaml"
    config.write_text("suites:\n  - name: x\n    agent: a\n    eval_sets: ['*.json']\n    yes: 1\n")
    assert main(["validate", str(config)]) == 2
    assert "$.suites[0]" in capsys.readouterr().out


def test_yes_and_no_labels_of_a_prompt_template_read_as_the_words(tmp_path):
    from agenteval_ci.files.eval_configs import load_eval_config

    config = tmp_path / "eval_config.yaml"
    config.write_text("metrics_to_run: [polite]\ncustom_metrics:\n  - name: polite\n    prompt_template: 'Is {response} polite?'\n"
                      "    labels: {yes: 1, no: 0}\n")
    loaded = load_eval_config(config)
    assert [m.name for m in loaded.metrics if not m.spec.informational] == ["polite"]
    assert loaded.metrics[0].spec.judged
