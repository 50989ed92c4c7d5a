"""Size limits (413) and unsafe archives (400 unsafe_archive), against a server with small
limits. Each limit is a setting; the exact error code comes back."""

from __future__ import annotations

import io
import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.app.api import logs
from tests.app.api._server import Server
from tests.app.api.calls import assert_problem, upload

LIMITS = {
    "LOSSFORENSICS_MAX_UPLOAD_BYTES": "200000",
    "LOSSFORENSICS_MAX_UNPACKED_BYTES": "300000",
    "LOSSFORENSICS_MAX_ARCHIVE_MEMBERS": "5",
    "LOSSFORENSICS_MAX_POINTS_PER_RUN": "1000",
}


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("limits") / "data", env=LIMITS).start()
    yield srv
    srv.stop()


@pytest.fixture()
def c(small: Server) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=small.url, timeout=60) as client:
        yield client


def test_upload_over_byte_limit_is_413(c, tmp_path):
    path = tmp_path / "big.jsonl"
    path.write_bytes(b'{"step": 1, "loss": 1.0}\n' * 12000)  # 300 kB
    body = assert_problem(upload(c, path), 413, "too_large")
    assert "200000" in body["detail"]


def test_chunked_upload_over_limit_is_413_without_content_length(c):
    boundary = "b0undary"

    def body() -> Iterator[bytes]:
        yield (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
            f'filename="x.jsonl"\r\n\r\n'
        ).encode()
        for _ in range(40):
            yield b'{"step": 1, "loss": 1.0}\n' * 400  # 10 kB a chunk, 400 kB in all
        yield f"\r\n--{boundary}--\r\n".encode()

    resp = c.post(
        "/v1/runs",
        content=body(),
        headers={"content-type": f"multipart/form-data; boundary={boundary}"},
    )
    assert_problem(resp, 413, "too_large")


def test_zip_bomb_stops_at_the_unpacked_limit(c, tmp_path):
    path = tmp_path / "bomb.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("run/log.jsonl", b"0" * 5_000_000)
    assert path.stat().st_size < 100_000
    assert_problem(upload(c, path), 413, "too_large")


def test_too_many_members_is_413(c, tmp_path):
    path = tmp_path / "many.zip"
    with zipfile.ZipFile(path, "w") as zf:
        for i in range(6):
            zf.writestr(f"run/f{i}.jsonl", b'{"step": 1, "loss": 1}\n')
    assert_problem(upload(c, path), 413, "too_large")


def test_too_many_points_is_413(c, tmp_path):
    path = logs.write_jsonl(tmp_path / "long.jsonl", n=1001)  # 3 metrics x 1001 points
    body = assert_problem(upload(c, path), 413, "too_large")
    assert "1000" in body["detail"]


def _zip(path: Path, name: str, *, mode: int | None = None) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        info = zipfile.ZipInfo(name)
        if mode is not None:
            info.external_attr = mode << 16
        zf.writestr(info, b"target")
    return path


@pytest.mark.parametrize(
    "name",
    ["../evil.jsonl", "run/../../evil.jsonl", "/etc/evil.jsonl", "C:/evil.jsonl", "..\\evil.jsonl"],
)
def test_zip_member_escaping_is_refused(c, tmp_path, name, small):
    body = assert_problem(upload(c, _zip(tmp_path / "x.zip", name)), 400, "unsafe_archive")
    assert body["file"] == "x.zip"
    assert not list(small.data_dir.parent.rglob("evil.jsonl"))


def test_zip_symlink_is_refused(c, tmp_path):
    assert_problem(
        upload(c, _zip(tmp_path / "l.zip", "run/link", mode=0o120777)), 400, "unsafe_archive"
    )


def _member(name: str, kind: bytes, linkname: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = linkname
    return info


@pytest.mark.parametrize(
    "member",
    [
        _member("run/link", tarfile.SYMTYPE, "/etc/passwd"),
        _member("run/hard", tarfile.LNKTYPE, "run/x"),
        _member("run/dev", tarfile.CHRTYPE),
        _member("run/blk", tarfile.BLKTYPE),
        _member("run/fifo", tarfile.FIFOTYPE),
        _member("../up.jsonl", tarfile.REGTYPE),
        _member("/abs.jsonl", tarfile.REGTYPE),
    ],
    ids=lambda m: m.name,
)
def test_tar_unsafe_members_are_refused(c, tmp_path, member):
    path = logs.tar_with(tmp_path / "x.tar.gz", [member])
    assert_problem(upload(c, path), 400, "unsafe_archive")


def test_corrupt_archive_is_422(c, tmp_path):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("run/log.jsonl", b'{"step": 1, "loss": 1}\n' * 100)
    path = tmp_path / "cut.zip"
    path.write_bytes(buf.getvalue()[:-30])
    resp = upload(c, path)
    assert resp.status_code in (415, 422), resp.text
    assert resp.json()["code"] in ("corrupt_input", "unknown_format")


def test_upload_dir_is_emptied_after_each_request(c, small, tmp_path):
    upload(c, _zip(tmp_path / "x.zip", "../evil"))
    uploads = small.data_dir / "uploads"
    assert not uploads.exists() or not any(uploads.iterdir())
