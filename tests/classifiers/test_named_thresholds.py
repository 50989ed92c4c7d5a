"""Every number a classifier decides with has a name and a reason.

A bare `0.07` in a rule cannot be found, tuned or argued with. So, in the classifiers package:

- no numeric literal inside a function body other than the neutral ones (0, 1, -1, 2, 0.5:
  indices, halves, doublings); a threshold is a module constant or a settings field;
- every module constant, class field and keyword default that holds such a number carries a
  comment, on its line or in the comment block right above it, saying what it measures and why
  this value.

The closed-form statistics (the Kendall/Theil-Sen variance formula) are mathematics, not
judgement, and are left out by name below.
"""

from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2] / "classifiers"
NEUTRAL = {0, 1, -1, 2, 0.5}
# file -> why its numbers are not thresholds
EXEMPT = {
    "_calibration_table.py": "fitted data written by `make calibrate`",
    "signals/_theil_kendall.py": "closed-form variance of Kendall's S, mathematics",
}


def _sources() -> list[Path]:
    return [p for p in sorted(ROOT.rglob("*.py")) if str(p.relative_to(ROOT)) not in EXEMPT]


def _is_number(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Constant)
        and type(node.value) in (int, float)
        and node.value not in NEUTRAL
    )


def _numbers(node: ast.AST) -> list[ast.Constant]:
    return [n for n in ast.walk(node) if _is_number(n)]  # type: ignore[misc]


def _comment_lines(source: str) -> set[int]:
    lines = set()
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            lines.add(tok.start[0])
    return lines


def _documented(lineno: int, comments: set[int], text: list[str]) -> bool:
    """A comment on the line itself, or a comment block ending right above it."""
    if lineno in comments:
        return True
    above = lineno - 1
    return above in comments and text[above - 1].lstrip().startswith("#")


def _bare_in_bodies(tree: ast.Module) -> list[tuple[int, object]]:
    found = []
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for stmt in fn.body:
                found += [(n.lineno, n.value) for n in _numbers(stmt)]
    return found


def _undocumented_names(tree: ast.Module, source: str) -> list[tuple[int, str]]:
    comments = _comment_lines(source)
    text = source.splitlines()
    missing = []
    scopes: list[list[ast.stmt]] = [tree.body]
    scopes += [c.body for c in ast.walk(tree) if isinstance(c, ast.ClassDef)]
    for body in scopes:
        for stmt in body:
            if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
                if _numbers(stmt.value) and not any(
                    _documented(line, comments, text)
                    for line in range(stmt.lineno, (stmt.end_lineno or stmt.lineno) + 1)
                ):
                    missing.append((stmt.lineno, ast.unparse(stmt)[:60]))
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = fn.args
            pairs = list(
                zip(args.args[len(args.args) - len(args.defaults) :], args.defaults, strict=True)
            )
            pairs += [
                (a, d)
                for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)
                if d is not None
            ]
            for arg, default in pairs:
                if _numbers(default) and not _documented(arg.lineno, comments, text):
                    missing.append((arg.lineno, f"{fn.name}({arg.arg}=...)"))
    return missing


@pytest.mark.parametrize("path", _sources(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_bare_numbers_in_rules(path: Path) -> None:
    tree = ast.parse(path.read_text())
    bare = _bare_in_bodies(tree)
    assert not bare, f"{path.name}: name these (line, value): {bare}"


@pytest.mark.parametrize("path", _sources(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_named_number_says_why(path: Path) -> None:
    source = path.read_text()
    missing = _undocumented_names(ast.parse(source), source)
    assert not missing, f"{path.name}: give these a one-line reason: {missing}"


def test_the_check_finds_a_bare_number() -> None:
    tree = ast.parse("def rule(x):\n    return x > 0.07\n")
    assert _bare_in_bodies(tree) == [(2, 0.07)]


def test_the_check_wants_a_reason_beside_a_constant() -> None:
    bare = "_LIMIT = 0.07\n"
    reasoned = "# share of the run a tail may hold: below this a stall is noise\n_LIMIT = 0.07\n"
    assert _undocumented_names(ast.parse(bare), bare) == [(1, "_LIMIT = 0.07")]
    assert _undocumented_names(ast.parse(reasoned), reasoned) == []
