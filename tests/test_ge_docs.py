"""docs/graph*.md: the code they show runs and prints what they say it prints."""
import contextlib
import io
import re
from pathlib import Path

DOCS = Path(__file__).resolve().parent.parent / "docs"


def test_the_readable_dump_shown_is_what_the_snippet_prints():
    text = (DOCS / "graph_files.md").read_text()
    section = text[text.index("\n## kReadable\n"):text.index("\n## kTxt\n")]
    code, shown = re.findall(r"```(?:python)?\n(.*?)```", section, re.S)
    scope = {}
    exec("from actgrad.ge.es import GraphBuilder\nfrom actgrad.ge.es.actgrad import ActgradHardtanhGrad\n"  # noqa: S102
         "from actgrad.ge.graph import DumpFormat\n", scope)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "docs/graph_files.md (kReadable)", "exec"), scope)  # noqa: S102
    assert out.getvalue().strip() == shown.strip()
