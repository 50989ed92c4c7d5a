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


def _hook(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"_docs_hook_{name}", DOCS / "_hooks" / name)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def generated() -> ModuleType:
    return _hook("generated.py")


def _local_links(page: Path) -> list[tuple[str, Path]]:
    out = []
    for target in LINK.findall(page.read_text(encoding="utf-8")):
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
