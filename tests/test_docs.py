"""The front page and the docs site: short, current, and generated where the code owns the facts.

`make check` builds the site with `mkdocs build --strict`; these tests hold what a build alone
would not: the README's limits, links that resolve in a clone, and the generated tables covering
everything the code declares.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
README = REPO / "README.md"
LINK = re.compile(r"\]\(([^)\s]+)\)")
# inline code (`Epoch:[0/19](100/24681)`, a log line quoted): Markdown links no text inside it
CODE_SPAN = re.compile(r"`[^`\n]+`")


def _load(path: Path, name: str) -> ModuleType:
    """A script that is no package module (a docs hook, a benchmark), loaded from its file."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _hook(name: str) -> ModuleType:
    return _load(DOCS / "_hooks" / name, f"_docs_hook_{name}")


@pytest.fixture(scope="module")
def generated() -> ModuleType:
    return _hook("generated.py")


def _local_links(page: Path) -> list[tuple[str, Path]]:
    out = []
    for target in LINK.findall(CODE_SPAN.sub("", page.read_text(encoding="utf-8"))):
        if re.match(r"^[a-z]+:", target) or target.startswith("#"):
            continue
        out.append((target, (page.parent / target.split("#")[0]).resolve()))
    return out


def test_readme_is_a_short_front_page():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 200
    for needed in ("make run", "make test", "pip install lossforensics", "import lossforensics"):
        assert needed in text
    assert "pip install torch==2.13.0" in text and "lossforensics[torch]" in text


@pytest.mark.parametrize(
    "page", [README, REPO / "CONTRIBUTING.md", REPO / "CHANGELOG.md", *sorted(DOCS.rglob("*.md"))]
)
def test_pages_hold_no_history_and_only_links_a_clone_has(page: Path):
    text = page.read_text(encoding="utf-8")
    assert "../shared" not in text
    assert not re.search(r"\bsession \d\b|\bcommit [0-9a-f]{7,}\b", text)
    for target, path in _local_links(page):
        assert path.exists(), f"{page.name} links {target}, which does not exist"


def test_the_report_picture_is_committed():
    assert (DOCS / "img" / "report-exploding.png").stat().st_size > 10_000


def test_the_labels_page_covers_every_label_cause_and_check(generated):
    from lossforensics.classifiers.labels import SEVERITY
    from lossforensics.classifiers.playbook import PLAYBOOK

    page = generated.expand((DOCS / "labels.md").read_text(encoding="utf-8"))
    assert "<!--" not in page.split("# Labels", 1)[1]
    for label in SEVERITY:
        assert f"## `{label}`" in page
        for rule in PLAYBOOK[label]:
            assert generated._cell(rule.cause) in page
            for check in rule.checks:
                assert generated._cell(check) in page


def test_every_error_code_and_setting_is_documented(generated):
    from lossforensics.api.errors import STATUS_BY_CODE
    from lossforensics.settings import Settings

    errors = generated.render_errors()
    for code, status in STATUS_BY_CODE.items():
        assert f"| `{code}` | {status} |" in errors
    settings = generated.render_settings()
    for name in Settings.model_fields:
        assert f"`LOSSFORENSICS_{name.upper()}`" in settings


def test_an_unknown_generated_block_fails_the_build(generated):
    with pytest.raises(KeyError):
        generated.expand("<!-- generated: nothing_by_this_name -->")


def test_every_page_is_in_the_nav():
    nav = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    for page in DOCS.rglob("*.md"):
        rel = page.relative_to(DOCS).as_posix()
        if not rel.startswith("_"):
            assert f" {rel}" in nav, f"{rel} is not in mkdocs.yml's nav"


def test_the_api_reference_tree_mirrors_the_installed_layout(tmp_path):
    tree = _hook("api_tree.py").build_tree(tree=tmp_path)
    assert (tree / "lossforensics" / "client.py").resolve() == REPO / "app" / "client.py"
    assert (tree / "lossforensics" / "classifiers" / "diagnosis.py").exists()
    assert (tree / "lossforensics" / "probes" / "__init__.py").exists()


def _accuracy_page() -> ModuleType:
    return _load(REPO / "benchmarks" / "accuracy_page.py", "_accuracy_page")


def _per_set_rows(page: str) -> dict[str, list[str]]:
    """docs/accuracy.md's per-set table: set name -> its cells."""
    section = page.split("## Per set", 1)[1].split("\n## ", 1)[0]
    rows = [line.strip("|").split("|") for line in section.splitlines() if line.startswith("| ")]
    return {cells[0].strip(): [c.strip() for c in cells] for cells in rows[1:]}


def test_the_readme_quotes_the_accuracy_page_figures():
    """README's summary table is the one accuracy_page.py writes from the same report as
    docs/accuracy.md: each row's runs, macro-F1, verdict rate, false alarms and ECE agree."""
    page = _accuracy_page()
    readme = README.read_text(encoding="utf-8")
    assert page.README_START in readme and page.README_END in readme
    table = readme.split(page.README_START)[1].split(page.README_END)[0]
    quoted = {
        cells[0].strip(): [c.strip() for c in cells]
        for cells in (line.strip("|").split("|") for line in table.strip().splitlines()[2:])
    }
    measured = _per_set_rows((DOCS / "accuracy.md").read_text(encoding="utf-8"))
    for name, what in page.README_SETS.items():
        if name not in measured:
            continue
        _, runs, f1, primary, far, _, _, ece, _ = measured[name]
        _, q_runs, q_f1, q_primary, q_far, q_ece = quoted[what]
        assert (q_runs, q_primary, q_ece) == (runs, primary, ece), name
        assert float(q_f1) == round(float(f1), 2), name
        assert q_far.replace(" of ", "/") == far.split(" ")[0], name


def test_the_readme_table_is_rewritten_between_its_markers_only():
    page = _accuracy_page()
    scores = {
        "runs": 3,
        "macro_f1": 0.5,
        "verdict_is_primary": 2 / 3,
        "healthy_false_alarms": 1,
        "healthy_runs": 2,
        "ece": 0.0123,
    }
    report = {"sets": {"real_runs": {"scores": scores}}}
    what, other = page.README_SETS["real_runs"], page.README_SETS["corpus"]
    old = (
        f"| {what} | 9 | 0.1 | 1% | 0 of 1 | 0.9 |\n"
        f"| {other} | 313 | 0.90 | 92.7% | 0 of 69 | 0.018 |"
    )
    readme = f"intro\n{page.README_START}\n{old}\n{page.README_END}\nrest\n"
    out = page.with_readme_table(readme, report)
    assert out.startswith(f"intro\n{page.README_START}\n| set |") and "| 9 |" not in out
    assert f"| {what} | 3 | 0.50 | 66.7% | 1 of 2 | 0.012 |" in out
    # a set the report did not score (../shared absent) keeps the row last measured
    assert f"| {other} | 313 | 0.90 | 92.7% | 0 of 69 | 0.018 |" in out
    assert out.endswith(f"{page.README_END}\nrest\n")
    # no markers: a README that dropped the table is left alone
    assert page.with_readme_table("no table here\n", report) == "no table here\n"
