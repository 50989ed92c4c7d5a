"""The lint gate runs with the tests, so CI enforces the ruff rules in pyproject.toml."""

import shutil
import subprocess
import sys

import pytest

from tests.conftest import REPO


def test_ruff_finds_nothing():
    if (
        shutil.which("ruff") is None
        and subprocess.run(
            [sys.executable, "-m", "ruff", "--version"], capture_output=True
        ).returncode
        != 0
    ):
        pytest.skip("ruff is not installed (it comes with the [dev] extra)")
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--quiet", str(REPO)],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stdout + done.stderr
