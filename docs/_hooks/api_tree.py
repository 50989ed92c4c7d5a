"""MkDocs hook: lay out the package as it is installed, for mkdocstrings to read.

setup.py maps the repository's folders into one import name (app/ is `lossforensics`,
classifiers/ is `lossforensics.classifiers`, ...). mkdocstrings reads source files statically
and looks for a `lossforensics/` folder, which the repository does not have, and it cannot
follow an editable install's import hook. So when MkDocs starts this links every entry of
each mapped folder at its installed place under build/docs-api/ (mkdocs.yml gives that folder to
mkdocstrings as its search path). The mapping is read from setup.py, its one copy.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
TREE = ROOT / "build" / "docs-api"


def package_dirs() -> dict[str, str]:
    """setup.py's PACKAGE_DIRS, read without running setup()."""
    for node in ast.parse((ROOT / "setup.py").read_text()).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "PACKAGE_DIRS" for t in node.targets
        ):
            return dict(ast.literal_eval(node.value))
    raise RuntimeError("setup.py has no PACKAGE_DIRS")


def build_tree(root: Path = ROOT, tree: Path = TREE) -> Path:
    """The link tree under `tree` (rebuilt each time); returns it."""
    for name, folder in sorted(package_dirs().items()):
        target = tree.joinpath(*name.split("."))
        target.mkdir(parents=True, exist_ok=True)
        for old in target.iterdir():
            if old.is_symlink():
                old.unlink()
        for entry in sorted((root / folder).iterdir()):
            if entry.name == "__pycache__" or (target / entry.name).exists():
                continue  # a nested mapped package's own folder
            (target / entry.name).symlink_to(entry)
    return tree


def on_startup(**_: Any) -> None:
    # startup, not config: mkdocstrings fixes its search paths in its own config event, which
    # runs before a hook's
    build_tree()
