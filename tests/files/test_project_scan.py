"""What init reads in a project's sources and .env files (files/project_scan.py), never running them."""

from __future__ import annotations

from agenteval_ci.files.project_scan import SourceFacts, deployment_only, facts_of, imported_sources, read_dotenv, scan_sources

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


def test_env_lines_their_comments_mark_for_deployment(tmp_path):
    (tmp_path / ".env.example").write_text(
        "# Your key\nGOOGLE_API_KEY=\n\n# Only required for deployment\nGOOGLE_CLOUD_STORAGE_BUCKET=b\nSTAGING=s\n\n"
        "LOGS=l  # used when deploying to Cloud Run\nSEARCH_KEY=\"x # deploy\"\nOTHER=o\n")
    assert deployment_only(tmp_path, ["."]) == {"GOOGLE_CLOUD_STORAGE_BUCKET", "STAGING", "LOGS"}


def test_only_what_the_agent_package_imports_is_read(tmp_path):
    """ADK imports the package and its agent module; their imports of the project, relative or
    absolute, are followed. The web server and the deployment script beside them are not."""
    files = {
        "app/__init__.py": "from . import agent\n",
        "app/agent.py": "from app.tools import search\nfrom .config import settings\nimport app.prompts.base\n",
        "app/tools.py": "from .sub import helper\n",
        "app/sub/__init__.py": "", "app/sub/helper.py": "x = 1\n",
        "app/config.py": "", "app/prompts/__init__.py": "", "app/prompts/base.py": "def f():\n    from ..late import g\n",
        "app/late.py": "", "app/fast_api_app.py": "from app.agent import root_agent\n", "deployment/deploy.py": "import app\n",
        "app/broken.py": "def (:\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    found = imported_sources(tmp_path, ["app"], list(files))
    assert sorted(found) == ["app/__init__.py", "app/agent.py", "app/config.py", "app/late.py", "app/prompts/__init__.py",
                             "app/prompts/base.py", "app/sub/__init__.py", "app/sub/helper.py", "app/tools.py"]
