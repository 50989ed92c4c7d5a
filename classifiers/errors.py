"""The one exception tree of lossforensics. It knows nothing of HTTP or exit codes.

    LossForensicsError  code="error"
    ├── InputError  code="bad_input"        something about the user's input
    │   ├── EmptyInputError  code="empty_input"      a file or upload with no bytes / no points
    │   ├── UnknownFormatError  code="unknown_format"   no reader recognises the content
    │   ├── CorruptInputError  code="corrupt_input"    recognised, but unreadable at a location
    │   ├── NoLogsFoundError  code="no_logs"          a directory with nothing we can read
    │   ├── UnsafeArchiveError  code="unsafe_archive"   absolute paths, '..', links, devices
    │   └── LimitExceededError  code="too_large"        bytes, members or points over a limit
    ├── InvalidFrameError  code="invalid_frame"    a frame breaks the normalised schema
    ├── InvalidRoleError  code="invalid_role"     a role override names an unknown role
    ├── NotFoundError  code="not_found"        no such run (or not visible to you)
    ├── ConflictError  code="conflict"         the request clashes with another (a reused key)
    ├── AuthError  code="unauthorized"     missing or unknown bearer token
    ├── ForbiddenError  code="forbidden"       a foreign Host or a cross-site Origin
    ├── StorageFullError  code="storage_full"  no space left where the service writes
    └── ProbeError  code="probe_failed"     a probe could not run on the model

The API maps codes to statuses in one table (app/api/errors.py), the client maps codes back to
these classes, the CLI maps them to exit codes. Every error can carry where it happened: a file,
a line (1-based) and a byte offset (0-based), and `str()` puts them in the message.
"""

from __future__ import annotations

from typing import Any


class LossForensicsError(Exception):
    """Base of every error the project raises on purpose."""

    code = "error"

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        byte: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.file = None if file is None else str(file)
        self.line = line
        self.byte = byte

    @property
    def location(self) -> str:
        """'file, line 3, byte 120' (only the parts that are known)."""
        parts = [p for p in (self.file,) if p]
        if self.line is not None:
            parts.append(f"line {self.line}")
        if self.byte is not None:
            parts.append(f"byte {self.byte}")
        return ", ".join(parts)

    def __str__(self) -> str:
        loc = self.location
        return f"{loc}: {self.message}" if loc else self.message

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "message": self.message,
            "file": self.file,
            "line": self.line,
            "byte": self.byte,
        }


class InputError(LossForensicsError):
    code = "bad_input"


class EmptyInputError(InputError):
    code = "empty_input"


class UnknownFormatError(InputError):
    code = "unknown_format"


class CorruptInputError(InputError):
    code = "corrupt_input"


class NoLogsFoundError(InputError):
    code = "no_logs"


class UnsafeArchiveError(InputError):
    code = "unsafe_archive"


class LimitExceededError(InputError):
    code = "too_large"


class InvalidFrameError(LossForensicsError):
    code = "invalid_frame"


class InvalidRoleError(LossForensicsError):
    code = "invalid_role"


class NotFoundError(LossForensicsError):
    code = "not_found"


class ConflictError(LossForensicsError):
    code = "conflict"


class AuthError(LossForensicsError):
    code = "unauthorized"


class ForbiddenError(LossForensicsError):
    code = "forbidden"


class StorageFullError(LossForensicsError):
    code = "storage_full"


class ProbeError(LossForensicsError):
    code = "probe_failed"


def _all_subclasses(
    cls: type[LossForensicsError], *, include_self: bool = False
) -> list[type[LossForensicsError]]:
    out: list[type[LossForensicsError]] = [cls] if include_self else []
    for sub in cls.__subclasses__():
        out.append(sub)
        out.extend(_all_subclasses(sub))
    return out


ERRORS_BY_CODE: dict[str, type[LossForensicsError]] = {
    c.code: c for c in _all_subclasses(LossForensicsError, include_self=True)
}


def error_from_dict(data: dict[str, Any]) -> LossForensicsError:
    """Rebuild a typed error from its `to_dict()` form (the client uses this on problem+json)."""
    cls = ERRORS_BY_CODE.get(str(data.get("code")), LossForensicsError)
    return cls(
        str(data.get("message") or data.get("detail") or "error"),
        file=data.get("file"),
        line=data.get("line"),
        byte=data.get("byte"),
    )
