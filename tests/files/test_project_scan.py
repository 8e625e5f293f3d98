"""What init reads in a project's sources and .env files (files/project_scan.py), never running them."""

from __future__ import annotations

from agenteval_ci.files.project_scan import SourceFacts, facts_of, read_dotenv, scan_sources

PYTHON = '''
import os
from google.adk.agents import Agent
from google.adk.models.lite_llm import LiteLlm

API_KEY = os.environ["GEMINI_API_KEY"]
WEATHER = os.getenv("WEATHER_API_KEY")
UNITS = os.getenv("UNITS", "metric")            # a default: not needed
MODEL = os.environ.get("MODEL", "gemini-2.5-flash")
os.environ["GOOGLE_GENAI_USE_VERTEXAI"] = "True"
os.environ.setdefault("GOOGLE_CLOUD_PROJECT", project_id)
if os.environ["MODE"] == "fast":
    pass
agent = Agent(model=LiteLlm(model="openai/gpt-4o"), instruction="Think like gpt-4 would")
'''


def test_python_reads_without_a_default_models_and_what_the_agent_sets():
    facts = SourceFacts()
    facts_of(PYTHON, "a/agent.py", facts)
    assert set(facts.read) == {"GEMINI_API_KEY", "WEATHER_API_KEY", "MODE"}
    assert facts.models == {"gemini-2.5-flash": "a/agent.py", "openai/gpt-4o": "a/agent.py"}
    assert facts.assigned == {"GOOGLE_GENAI_USE_VERTEXAI": "True", "GOOGLE_CLOUD_PROJECT": ""}


def test_java_go_and_typescript_reads_and_models():
    facts = SourceFacts()
    facts_of('String key = System.getenv("SEARCH_TOKEN"); LlmAgent.builder().model("gemini-2.0-flash")', "A.java", facts)
    facts_of('key := os.Getenv("GOOGLE_API_KEY")\nm, _ := gemini.NewModel(ctx, "gemini-2.5-pro", nil)', "main.go", facts)
    facts_of("const k = process.env.OPENAI_API_KEY; const p = process.env.PORT || 8000; const m = 'gpt-4o-mini';", "agent.ts", facts)
    assert facts.read == {"SEARCH_TOKEN": "A.java", "GOOGLE_API_KEY": "main.go", "OPENAI_API_KEY": "agent.ts"}
    assert set(facts.models) == {"gemini-2.0-flash", "gemini-2.5-pro", "gpt-4o-mini"}


def test_unreadable_and_oversized_files_are_passed_by(tmp_path):
    (tmp_path / "big.py").write_text('x = "gemini-2.5-flash"\n' + "#" * 1_100_000)
    (tmp_path / "ok.py").write_bytes(b'\xff\xfe os.environ["A_KEY"]')
    facts = scan_sources(tmp_path, ["big.py", "ok.py", "missing.py"])
    assert facts.models == {} and facts.read == {"A_KEY": "ok.py"}


def test_the_real_env_file_wins_over_its_example(tmp_path):
    (tmp_path / "agent").mkdir()
    (tmp_path / ".env.example").write_text("GOOGLE_GENAI_USE_VERTEXAI=1\nGOOGLE_API_KEY=your-key  # from AI Studio\n")
    (tmp_path / "agent" / ".env").write_text("# local\nexport GOOGLE_GENAI_USE_VERTEXAI='FALSE'\nMAPS_KEY=\"abc # not a comment\"\n")
    values, files = read_dotenv(tmp_path, [".", "agent"])
    assert values == {"GOOGLE_GENAI_USE_VERTEXAI": "FALSE", "MAPS_KEY": "abc # not a comment", "GOOGLE_API_KEY": "your-key"}
    assert files["GOOGLE_GENAI_USE_VERTEXAI"] == "agent/.env" and files["GOOGLE_API_KEY"] == ".env.example"


def test_env_files_are_parsed_as_run_loads_them(tmp_path):
    """init reads .env with python-dotenv, the parser `run` loads it with: escaped quotes and a
    quoted value over several lines mean what they mean there."""
    (tmp_path / ".env").write_text('QUOTED="say \\"hi\\""\nPEM="-----BEGIN\nabc\n-----END"\nAFTER=1\nBARE_NAME\n')
    values, _ = read_dotenv(tmp_path, ["."])
    assert values == {"QUOTED": 'say "hi"', "PEM": "-----BEGIN\nabc\n-----END", "AFTER": "1"}
