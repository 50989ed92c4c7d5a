"""Safe extraction of an uploaded run directory (.zip, .tar, .tar.gz/.tgz, .tar.bz2, .tar.xz).

Refused with UnsafeArchiveError: members with absolute paths, `..` components, symbolic or hard
links, devices and FIFOs. Bounded with LimitExceededError: the number of members and the bytes
actually written (counted while copying, never trusted from headers, so a zip bomb stops at the
limit). Nothing here imports FastAPI.
"""

from __future__ import annotations

import shutil
import stat
import tarfile
import zipfile
import zlib
from pathlib import Path, PurePosixPath
from typing import IO

from lossforensics.classifiers.errors import (
    CorruptInputError,
    LimitExceededError,
    UnsafeArchiveError,
)
from lossforensics.ingest._numpy_files import npz_array_names
from lossforensics.store.space import is_full, storage_full

CHUNK = 1 << 20


def archive_kind(path: Path) -> str | None:
    """'zip', 'tar' or None, from the content (names lie; a .gz that is not a tar is no archive,
    and a NumPy `.npz`, a zip of arrays, is a log)."""
    with open(path, "rb") as fh:
        head = fh.read(4)
    if head[:4] in (b"PK\x03\x04", b"PK\x05\x06"):
        return None if npz_array_names(path) is not None else "zip"  # an .npz is a log
    try:
        return "tar" if tarfile.is_tarfile(path) else None
    except (OSError, EOFError, zlib.error, tarfile.TarError):
        return None


class UnpackBudget:
    """The unpacked bytes of one request, shared by all its archives (a budget per archive
    would let one request multiply it by sending many)."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.bytes = 0


class _Budget:
    """Counts members across one archive and unpacked bytes against the request's budget."""

    def __init__(self, name: str, max_members: int, shared: UnpackBudget) -> None:
        self.name, self.max_members, self.shared = name, max_members, shared
        self.members = 0

    def member(self) -> None:
        self.members += 1
        if self.members > self.max_members:
            raise LimitExceededError(
                f"archive has more than {self.max_members} members", file=self.name
            )

    def copy(self, src: IO[bytes], dest: Path) -> None:
        dest.parent.mkdir(parents=True, exist_ok=True)
        with open(dest, "wb") as out:
            while chunk := src.read(CHUNK):
                self.shared.bytes += len(chunk)
                if self.shared.bytes > self.shared.max_bytes:
                    raise LimitExceededError(
                        f"the upload's archives unpack to more than {self.shared.max_bytes} "
                        "bytes (the limit for all archives of a request together)",
                        file=self.name,
                    )
                out.write(chunk)


def member_path(name: str, archive: str) -> PurePosixPath:
    """The member's relative path, or UnsafeArchiveError for absolute paths and `..`."""
    norm = name.replace("\\", "/")
    if norm.startswith("/") or (len(norm) > 1 and norm[1] == ":"):
        raise UnsafeArchiveError(f"member {name!r} has an absolute path", file=archive)
    parts = [p for p in norm.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise UnsafeArchiveError(f"member {name!r} escapes the archive with '..'", file=archive)
    if any("\x00" in p for p in parts):
        raise UnsafeArchiveError(f"member {name!r} has a NUL byte in its name", file=archive)
    return PurePosixPath(*parts) if parts else PurePosixPath(".")


def extract_archive(
    path: Path,
    dest: Path,
    *,
    display_name: str,
    max_members: int,
    max_bytes: int,
    budget: UnpackBudget | None = None,
) -> Path:
    """Unpack `path` into `dest` (created) safely; returns `dest`. Half-unpacked content is
    removed when an error stops it. `budget` is the request's (shared by its archives); without
    one, `max_bytes` is this archive's own."""
    kind = archive_kind(path)
    dest.mkdir(parents=True, exist_ok=True)
    counter = _Budget(display_name, max_members, budget or UnpackBudget(max_bytes))
    try:
        if kind == "zip":
            _extract_zip(path, dest, counter)
        elif kind == "tar":
            _extract_tar(path, dest, counter)
        else:
            raise CorruptInputError("not a zip or tar archive", file=display_name)
    except OSError as exc:
        shutil.rmtree(dest, ignore_errors=True)
        if is_full(exc):
            raise storage_full(f"the unpacked archive {display_name}") from exc
        raise CorruptInputError(f"broken {kind} archive: {exc}", file=display_name) from exc
    except (
        zipfile.BadZipFile,
        tarfile.TarError,
        EOFError,
        zlib.error,
        NotImplementedError,
        RuntimeError,
        ValueError,
    ) as exc:
        shutil.rmtree(dest, ignore_errors=True)
        raise CorruptInputError(f"broken {kind} archive: {exc}", file=display_name) from exc
    except BaseException:
        shutil.rmtree(dest, ignore_errors=True)
        raise
    return dest


def _extract_zip(path: Path, dest: Path, budget: _Budget) -> None:
    with zipfile.ZipFile(path) as zf:
        for info in zf.infolist():
            budget.member()
            rel = member_path(info.filename, budget.name)
            mode = info.external_attr >> 16
            if stat.S_ISLNK(mode):
                raise UnsafeArchiveError(f"member {info.filename!r} is a link", file=budget.name)
            if stat.S_IFMT(mode) and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                raise UnsafeArchiveError(
                    f"member {info.filename!r} is a device or FIFO", file=budget.name
                )
            if info.flag_bits & 0x1:
                raise CorruptInputError(f"member {info.filename!r} is encrypted", file=budget.name)
            if info.is_dir() or str(rel) == ".":
                (dest / rel).mkdir(parents=True, exist_ok=True)
                continue
            with zf.open(info) as src:
                budget.copy(src, dest / rel)


def _extract_tar(path: Path, dest: Path, budget: _Budget) -> None:
    with tarfile.open(path, "r:*") as tf:
        for member in tf:  # streaming: members are read as they come
            budget.member()
            rel = member_path(member.name, budget.name)
            if member.issym() or member.islnk():
                raise UnsafeArchiveError(f"member {member.name!r} is a link", file=budget.name)
            if member.isdev() or not (member.isfile() or member.isdir()):
                raise UnsafeArchiveError(
                    f"member {member.name!r} is a device or FIFO", file=budget.name
                )
            if member.isdir() or str(rel) == ".":
                (dest / rel).mkdir(parents=True, exist_ok=True)
                continue
            src = tf.extractfile(member)
            if src is None:
                raise CorruptInputError(f"member {member.name!r} has no data", file=budget.name)
            with src:
                budget.copy(src, dest / rel)
