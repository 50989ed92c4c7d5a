"""Type-check the package as it is installed: `lossforensics`, not `app`.

The repository keeps app/, classifiers/ and probes/ at the top and setup.py maps them into one
import name. mypy has no such mapping, and an editable install is an import hook it cannot follow:
checked as folders, every `from lossforensics... import` would be an unresolved module (Any) and
no type would cross a module boundary. So this builds the installed layout as a tree of links
under build/typecheck/ (from setup.py's PACKAGE_DIRS, the one copy of the mapping), runs mypy on
the package there (pyproject.toml: mypy_path, packages), and prints paths as the repository has
them. Extra arguments go to mypy.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TREE = ROOT / "build" / "typecheck"


def package_dirs() -> dict[str, str]:
    """setup.py's PACKAGE_DIRS, read without running setup()."""
    module = ast.parse((ROOT / "setup.py").read_text())
    for node in module.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "PACKAGE_DIRS" for t in node.targets
        ):
            return dict(ast.literal_eval(node.value))
    raise SystemExit("setup.py has no PACKAGE_DIRS")


def build_tree(dirs: dict[str, str]) -> dict[str, str]:
    """Link every entry of each mapped folder at its installed place; return tree -> repo
    path prefixes, longest first, for rewriting mypy's output."""
    prefixes: dict[str, str] = {}
    for name, folder in sorted(dirs.items()):
        target = TREE.joinpath(*name.split("."))
        target.mkdir(parents=True, exist_ok=True)
        for old in target.iterdir():
            if old.is_symlink():
                old.unlink()
        for entry in sorted((ROOT / folder).iterdir()):
            if entry.name == "__pycache__" or (target / entry.name).exists():
                continue  # a nested mapped package's own folder
            (target / entry.name).symlink_to(entry)
        rel = target.relative_to(ROOT).as_posix()
        prefixes[rel + "/"] = folder.rstrip("/") + "/"
    return dict(sorted(prefixes.items(), key=lambda kv: -len(kv[0])))


def main(argv: list[str]) -> int:
    prefixes = build_tree(package_dirs())
    pattern = re.compile("|".join(re.escape(p) for p in prefixes))
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": ""},
    )
    for stream, text in ((sys.stdout, proc.stdout), (sys.stderr, proc.stderr)):
        stream.write(pattern.sub(lambda m: prefixes[m.group(0)], text))
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
