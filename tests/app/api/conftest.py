"""Fixtures: a real server (one per module that asks for it) and small log files."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.app.api import logs
from tests.app.api._server import Server


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One plain server for every module that needs no special settings."""
    srv = Server(tmp_path_factory.mktemp("srv") / "data").start()
    yield srv
    srv.stop()


@pytest.fixture()
def client(server: Server) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=60) as c:
        yield c


@pytest.fixture(scope="session")
def log_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("logs")


@pytest.fixture(scope="session")
def jsonl_file(log_dir: Path) -> Path:
    return logs.write_jsonl(log_dir / "metrics.jsonl")


@pytest.fixture(scope="session")
def overfit_jsonl(log_dir: Path) -> Path:
    return logs.write_jsonl(log_dir / "overfit.jsonl", n=400, overfit=True)


@pytest.fixture(scope="session")
def event_file(log_dir: Path) -> Path:
    return logs.write_tfevents(log_dir / "tb_single", tag="train/loss")


@pytest.fixture(scope="session")
def keras_run_dir(log_dir: Path) -> Path:
    """A Keras TensorBoard layout: train/ and validation/ each with an `epoch_loss` series."""
    root = log_dir / "keras_run"
    logs.write_tfevents(root / "train", tag="epoch_loss", n=60, overfit=True, which="train")
    logs.write_tfevents(root / "validation", tag="epoch_loss", n=60, overfit=True, which="val")
    return root
