"""The Porter stemmer is loaded without nltk's package __init__; nothing else may notice."""

from __future__ import annotations

import subprocess
import sys
import textwrap

WORDS = ["running", "generalizations", "quickly", "agreed", "abilities", "lights", "turned", "the"]


def run_python(code: str) -> str:
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def test_stemmer_loads_without_nltk_init_and_a_later_import_gets_the_real_package():
    out = run_python(f"""
        import sys
        from agenteval_ci.core.metrics import rouge
        print(sorted(m for m in sys.modules if m.split(".")[0] == "nltk"))
        ours = [rouge._stemmer.stem(w) for w in {WORDS!r}]
        import nltk  # what an agent under test may do afterwards
        from nltk.stem import PorterStemmer
        import rouge_score.tokenizers
        print(hasattr(nltk, "word_tokenize") and hasattr(nltk, "corpus"))
        print(ours == [PorterStemmer().stem(w) for w in {WORDS!r}])
        print(rouge._stemmer.__class__.__module__ == "nltk.stem.porter")
    """)
    assert out.splitlines() == ["[]", "True", "True", "True"]


def test_falls_back_to_the_plain_import_when_nltk_is_loaded_already():
    out = run_python("""
        import nltk.stem.porter
        real = nltk.stem.porter.PorterStemmer
        from agenteval_ci.core.metrics import rouge
        import sys
        print(type(rouge._stemmer) is real, sys.modules["nltk"] is nltk)
    """)
    assert out == "True True"


def test_a_porter_module_that_needs_more_of_nltk_falls_back_and_leaves_no_stand_ins():
    out = run_python("""
        import sys
        from agenteval_ci.core.metrics import rouge
        def needs_more():
            rouge._porter_module_alone_real()
            raise ImportError("a future porter.py imports nltk.corpus")
        rouge._porter_module_alone_real, rouge._porter_module_alone = rouge._porter_module_alone, needs_more
        print(rouge._porter_class_alone(), [m for m in sys.modules if m.split(".")[0] == "nltk"])
        print(rouge._porter_stemmer().stem("running"))
    """)
    assert out.splitlines() == ["None []", "run"]
