"""Streams a multipart/form-data request body to files on disk, chunk by chunk.

Memory stays bounded whatever the upload size: each chunk the server receives is parsed and
written before the next is read. The byte limit is enforced on the Content-Length header before
reading and again on the bytes actually received (chunked uploads have no length), raising
LimitExceededError (413). Uploaded file names are kept (sanitised, sub-folders included) because
format detection and Keras `train/` + `validation/` layouts depend on them.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import IO, TYPE_CHECKING

from lossforensics.classifiers.errors import (
    EmptyInputError,
    InputError,
    LimitExceededError,
    UnknownFormatError,
)
from lossforensics.store.space import is_full, storage_full
from python_multipart.exceptions import FormParserError
from python_multipart.multipart import MultipartParser, parse_options_header

if TYPE_CHECKING:  # defined for type checkers only
    from python_multipart.multipart import MultipartCallbacks

FILE_FIELD = "file"
MAX_TEXT_FIELD = 64 * 1024
MAX_PART_BYTES = 200  # of one path part: room under NAME_MAX (255) for '-1' and temp prefixes
_BAD_CHARS = re.compile(r"[\x00-\x1f\x7f]")


@dataclass(frozen=True)
class SavedFile:
    name: str  # the sanitised relative name, as the user will see it in messages
    path: Path
    size: int


@dataclass
class ReceivedForm:
    files: list[SavedFile] = field(default_factory=list)
    fields: dict[str, str] = field(default_factory=dict)


def shorten(part: str, max_bytes: int = MAX_PART_BYTES) -> str:
    """`part` cut to at most `max_bytes` of UTF-8 (file systems allow 255 bytes a name, not 255
    characters), keeping its suffixes (`.tar.gz`, `.jsonl`: detection reads them) and never
    splitting a character."""
    if len(part.encode()) <= max_bytes:
        return part
    stem, dot, suffix = part.partition(".")
    suffix = (dot + suffix) if len((dot + suffix).encode()) <= max_bytes // 2 else ""
    stem = part[: len(part) - len(suffix)] if suffix else part
    room = max_bytes - len(suffix.encode())
    cut = stem.encode()[:room].decode("utf-8", "ignore")
    return cut + suffix


def sanitize_name(raw: str) -> PurePosixPath:
    """A safe relative path from a client-supplied file name: separators normalised, `.`/`..`
    and empty parts dropped, control characters removed, each part at most 200 bytes of UTF-8
    (suffixes kept), at most 8 parts."""
    parts = []
    for part in raw.replace("\\", "/").split("/"):
        part = _BAD_CHARS.sub("", part).strip()
        if part in ("", ".", ".."):
            continue
        parts.append(shorten(part))
    return PurePosixPath(*parts[-8:]) if parts else PurePosixPath("upload")


class _Receiver:
    """python-multipart callbacks writing file parts straight to `dest`."""

    def __init__(self, dest: Path, max_files: int) -> None:
        self.dest = dest
        self.max_files = max_files
        self.form = ReceivedForm()
        self._header_name = b""
        self._header_value = b""
        self._disposition = b""
        self._out: IO[bytes] | None = None
        self._text: bytearray | None = None
        self._field = ""
        self._saved: tuple[str, Path] | None = None
        self._size = 0

    def callbacks(self) -> MultipartCallbacks:
        return {
            "on_part_begin": self.on_part_begin,
            "on_header_field": self.on_header_field,
            "on_header_value": self.on_header_value,
            "on_header_end": self.on_header_end,
            "on_headers_finished": self.on_headers_finished,
            "on_part_data": self.on_part_data,
            "on_part_end": self.on_part_end,
        }

    def on_part_begin(self) -> None:
        self._disposition = b""
        self._out, self._text, self._saved, self._size = None, None, None, 0

    def on_header_field(self, data: bytes, start: int, end: int) -> None:
        self._header_name += data[start:end]

    def on_header_value(self, data: bytes, start: int, end: int) -> None:
        self._header_value += data[start:end]

    def on_header_end(self) -> None:
        if self._header_name.strip().lower() == b"content-disposition":
            self._disposition = self._header_value
        self._header_name = self._header_value = b""

    def on_headers_finished(self) -> None:
        _, opts = parse_options_header(self._disposition)
        self._field = opts.get(b"name", b"").decode("utf-8", "replace")
        if b"filename" not in opts:
            self._text = bytearray()
            return
        if self._field != FILE_FIELD:
            raise InputError(f"unexpected file field {self._field!r}; send files as `file`")
        if len(self.form.files) >= self.max_files:
            raise LimitExceededError(f"more than {self.max_files} files in one request")
        name = self._unique(sanitize_name(opts[b"filename"].decode("utf-8", "replace")))
        path = self.dest / name
        path.parent.mkdir(parents=True, exist_ok=True)
        self._out = open(path, "wb")  # noqa: SIM115 - closed in on_part_end / close()
        self._saved = (str(name), path)

    def on_part_data(self, data: bytes, start: int, end: int) -> None:
        if self._out is not None:
            self._out.write(data[start:end])
            self._size += end - start
        elif self._text is not None:
            self._text += data[start:end]
            if len(self._text) > MAX_TEXT_FIELD:
                raise LimitExceededError(f"form field {self._field!r} over {MAX_TEXT_FIELD} bytes")

    def on_part_end(self) -> None:
        if self._out is not None and self._saved is not None:
            self._out.close()
            self._out = None
            name, path = self._saved
            self.form.files.append(SavedFile(name, path, self._size))
        elif self._text is not None:
            self.form.fields[self._field] = self._text.decode("utf-8", "replace")

    def close(self) -> None:
        if self._out is not None:
            self._out.close()

    def _unique(self, name: PurePosixPath) -> PurePosixPath:
        taken = {f.name for f in self.form.files}
        out, i = name, 1
        while str(out) in taken or (self.dest / out).is_dir():
            out = name.with_name(f"{name.stem}-{i}{name.suffix}")
            i += 1
        return out


def boundary_of(content_type: str | None) -> bytes:
    """The multipart boundary, or UnknownFormatError (415) for any other body type."""
    ctype, params = parse_options_header(content_type or "")
    if ctype != b"multipart/form-data":
        raise UnknownFormatError(
            f"expected multipart/form-data with one or more `{FILE_FIELD}` parts, got "
            f"{(content_type or 'no content type')[:100]!r}"
        )
    boundary = params.get(b"boundary")
    if not boundary:
        raise InputError("multipart body without a boundary")
    return boundary


async def receive_form(
    chunks: AsyncIterator[bytes],
    content_type: str | None,
    content_length: str | None,
    dest: Path,
    *,
    max_bytes: int,
    max_files: int,
) -> ReceivedForm:
    """Parse the body into `dest`; at least one non-empty file part is required."""
    boundary = boundary_of(content_type)
    if content_length and content_length.isdigit() and int(content_length) > max_bytes:
        raise LimitExceededError(
            f"upload of {content_length} bytes is over the limit of {max_bytes} bytes"
        )
    dest.mkdir(parents=True, exist_ok=True)
    receiver = _Receiver(dest, max_files)
    parser = MultipartParser(boundary, receiver.callbacks())
    received = 0
    try:
        async for chunk in chunks:
            received += len(chunk)
            if received > max_bytes:
                raise LimitExceededError(f"upload is over the limit of {max_bytes} bytes")
            parser.write(chunk)
        parser.finalize()
    except FormParserError as exc:
        raise InputError(f"malformed multipart body: {exc}", byte=received) from exc
    except (NotADirectoryError, FileExistsError, IsADirectoryError) as exc:
        raise InputError(f"file names collide with a folder: {exc.filename}") from exc
    except OSError as exc:
        if is_full(exc):
            raise storage_full("the uploaded files") from exc
        raise
    finally:
        receiver.close()
    form = receiver.form
    if not form.files:
        raise EmptyInputError(f"no file in the request: send one or more `{FILE_FIELD}` parts")
    for f in form.files:
        if f.size == 0:
            raise EmptyInputError("uploaded file is empty", file=f.name)
    return form
