"""The installed distribution: one import name, `lossforensics`, and a light public API.

A user's project usually has its own `app/` package; ours must never shadow it or be shadowed
by it. These tests build the wheel, install it into a fresh virtual environment beside such a
project, and use it from there, outside this source tree.
"""

from __future__ import annotations

import ast
import importlib
import os
import shlex
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import lossforensics
import pytest

REPO = Path(__file__).resolve().parents[1]
GENERIC = {"app", "classifiers", "probes"}


def _package_files() -> list[Path]:
    roots = [
        Path(p)
        for name in ("lossforensics", "lossforensics.classifiers", "lossforensics.probes")
        for p in importlib.import_module(name).__path__
    ]
    return sorted({f for r in roots for f in r.rglob("*.py")})


def test_no_module_of_the_package_imports_a_generic_top_level_name():
    offenders = []
    for path in _package_files():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            offenders += [f"{path}:{node.lineno} {n}" for n in names if n.split(".")[0] in GENERIC]
    assert offenders == []


def test_client_import_loads_no_heavy_module():
    code = (
        "import sys, time; t = time.perf_counter(); from lossforensics import Client; "
        "print(time.perf_counter() - t); "
        "print(sorted({m.split('.')[0] for m in sys.modules} & "
        "{'pandas', 'scipy', 'matplotlib', 'fastapi', 'starlette', 'numpy'}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=Path("/")
    )
    assert out.stdout.splitlines()[1] == "[]"


def test_public_api_names_resolve_lazily():
    code = (
        "import sys, lossforensics as lf; "
        "assert 'pandas' not in sys.modules; "
        "print(lf.load_run.__module__, lf.diagnose.__module__, lf.audit.__module__, "
        "lf.Client.__module__)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=Path("/")
    )
    assert out.stdout.split() == [
        "lossforensics.ingest",
        "lossforensics.public",
        "lossforensics.public",
        "lossforensics.client",
    ]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(out),
            str(REPO),
        ],
        check=True,
        timeout=600,
    )
    return next(out.glob("lossforensics-*.whl"))


def test_wheel_installs_only_the_lossforensics_package(wheel: Path):
    with zipfile.ZipFile(wheel) as zf:
        tops = {
            n.split("/")[0]
            for n in zf.namelist()
            if not n.split("/")[0].endswith((".dist-info", ".data"))
        }
        names = set(zf.namelist())
    assert tops == {"lossforensics"}
    for needed in (
        "lossforensics/classifiers/plateau.py",
        "lossforensics/probes/__init__.py",
        "lossforensics/ingest/tensorboard.py",
        "lossforensics/report/report.html.j2",
        "lossforensics/api/static/swagger-ui/swagger-ui-bundle.js",
        "lossforensics/api/static/swagger-ui/LICENSE",
        "lossforensics/api/static/redoc/redoc.standalone.js",
        "lossforensics/api/static/redoc/LICENSE",
    ):
        assert needed in names


@pytest.mark.slow
def test_wheel_works_beside_a_users_own_app_package(wheel: Path, tmp_path: Path):
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    py = env_dir / "bin" / "python"
    # The dependencies come from this environment (a path line, so its own .pth files, an
    # editable install's among them, are not run); the wheel itself is installed for real.
    site = subprocess.run(
        [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    )
    # The wheel first: once this environment's packages are visible, pip would find an
    # installed lossforensics (CI installs it from a wheel) and skip the install.
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(py),
            "install",
            "-q",
            "--no-deps",
            str(wheel),
        ],
        check=True,
        timeout=600,
    )
    Path(site.stdout.strip(), "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    project = tmp_path / "project"
    (project / "app").mkdir(parents=True)
    (project / "app" / "__init__.py").write_text("OWNER = 'user'\n")
    (project / "app" / "client.py").write_text("WHO = 'the user app'\n")
    code = (
        "import app, app.client, lossforensics as lf, sys; "
        "print(app.OWNER, app.client.WHO); "
        "print(lf.__file__.startswith(sys.prefix)); "
        "d = lf.diagnose(sys.argv[1]); print(d.verdict)"
    )
    sample = REPO / "sample_runs" / "nan_jsonl"
    out = subprocess.run(
        [str(py), "-c", code, str(sample)], cwd=project, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "user the user app"
    assert lines[1] == "True"
    assert lines[2] == "exploding"  # the sample blows up, then goes NaN
    cli = subprocess.run(
        [str(env_dir / "bin" / "lossforensics"), "diagnose", str(sample), "--json"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert cli.returncode == 0, cli.stderr
    assert '"verdict": "exploding"' in cli.stdout and '"label": "nan"' in cli.stdout


@pytest.mark.skipif(
    not os.environ.get("LOSSFORENSICS_EXPECT_INSTALLED"),
    reason="only where the package is installed as a wheel (CI sets this variable)",
)
def test_the_suite_runs_against_the_installed_package_not_the_source_tree():
    where = Path(lossforensics.__file__).resolve()
    source = {(REPO / folder).resolve() for folder in ("app", "classifiers", "probes")}
    assert "site-packages" in where.parts and not source & set(where.parents), (
        f"lossforensics was imported from the source tree: {where}"
    )


@pytest.mark.parametrize("mode", ["editable", "wheel"])
def test_make_installs_pass_pip_a_project_path_in_either_mode(mode, tmp_path):
    """`make run` and `make test` on a fresh machine: each `pip install` of the project is valid.

    pip takes `-e` followed by a path (extras in brackets after it), never `-e` and the path
    inside one quoted word; the default editable mode is what a new user's `make test` runs.
    """
    venv_dir = tmp_path / "venv"
    out = subprocess.run(
        ["make", "-n", "-B", "run", "test", f"INSTALL={mode}", f"VENV={venv_dir}"],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
    ).stdout
    installs = [shlex.split(line) for line in out.splitlines() if " pip install " in line]
    project = [words[words.index("install") + 1 :] for words in installs]
    project = [[w for w in words if w not in ("-q", "--upgrade")] for words in project]
    project = [words for words in project if words and words[-1].startswith((".", "-e"))]
    assert len(project) == 2, out
    for words in project:
        editable = "-e" in words
        assert editable == (mode == "editable"), words
        path = [w for w in words if w != "-e"]
        assert len(path) == 1 and path[0].split("[")[0] == ".", words
