"""Type-check the package as it is installed: `lossforensics`, not `app`.

The repository keeps app/, classifiers/ and probes/ at the top and setup.py maps them into one
import name. mypy has no such mapping, and an editable install is an import hook it cannot follow:
checked as folders, every `from lossforensics... import` would be an unresolved module (Any) and
no type would cross a module boundary. So this builds the installed layout as a tree of links
under build/typecheck/ (from setup.py's PACKAGE_DIRS, the one copy of the mapping, with the
docs hook's builder, docs/_hooks/api_tree.py), runs mypy on the package there (pyproject.toml:
mypy_path, packages), and prints paths as the repository has them. Extra arguments go to mypy.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TREE = ROOT / "build" / "typecheck"


def link_tree() -> dict[str, str]:
    """The installed layout under build/typecheck/, built by the docs' hook (one builder for
    both); returns tree -> repository path prefixes, longest first, for rewriting mypy's
    output."""
    sys.path.insert(0, str(ROOT / "docs" / "_hooks"))
    from api_tree import build_tree, package_dirs

    build_tree(ROOT, TREE)
    prefixes = {
        TREE.joinpath(*name.split(".")).relative_to(ROOT).as_posix() + "/": folder.rstrip("/") + "/"
        for name, folder in package_dirs().items()
    }
    return dict(sorted(prefixes.items(), key=lambda kv: -len(kv[0])))


def main(argv: list[str]) -> int:
    prefixes = link_tree()
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
