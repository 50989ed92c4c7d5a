"""NumPy's own files, read without unpickling: `np.save("train_loss.npy", losses)` and
`np.savez("history.npz", loss=..., val_loss=...)`, the way many research scripts keep a curve.

Only arrays of numbers are read: an object array is a pickle, and loading one runs code, so it
is never loaded. Each array's header is read before its data, and a declared shape over the
read limit on points is refused before anything is allocated, so a small compressed `.npz`
cannot expand into memory it does not say it needs. A `.npy` file cut short gives the values
(whole rows) before the cut, and says where it was cut.
"""

from __future__ import annotations

import math
import zipfile
import zlib
from pathlib import Path
from typing import IO

import numpy as np
from lossforensics.classifiers.errors import (
    CorruptInputError,
    LimitExceededError,
    UnknownFormatError,
)
from lossforensics.ingest._limits import current

NPY_MAGIC = b"\x93NUMPY"
# a zip archive's first bytes (an `.npz` is one)
ZIP_MAGIC = b"PK\x03\x04"
# array kinds that hold numbers: signed, unsigned, float (not bool, complex, strings, objects)
_NUMERIC_KINDS = frozenset("iuf")
# dimensions of the arrays read: a series (1) or rows of a counter and values (2)
_MAX_DIMS = 2


# what a corrupt, cut, encrypted or oddly compressed zip raises while it is read
BROKEN_ZIP: tuple[type[BaseException], ...] = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    EOFError,
    zlib.error,
    OSError,
    NotImplementedError,
    RuntimeError,
    ValueError,
)


class _NotNumbers(Exception):
    """An array that holds something other than a series of numbers (the reason is the text)."""


def _header(fh: IO[bytes], path: Path, name: str) -> tuple[tuple[int, ...], bool, np.dtype]:
    """An array's shape, Fortran order and dtype from its header. _NotNumbers for an array of
    anything but numbers or of more than two dimensions; LimitExceededError past the limit on
    points; CorruptInputError for a header that is not one."""
    try:
        version = np.lib.format.read_magic(fh)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(fh)
        else:
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(fh)
    except Exception as exc:  # NumPy parses the header with Python's tokenizer: any error
        message = f"{name} has no valid NumPy array header ({type(exc).__name__})"
        raise CorruptInputError(message, file=str(path)) from None
    if dtype.hasobject:
        raise _NotNumbers(
            f"{name} holds Python objects (a pickle, which is never loaded: it could run code); "
            "save the losses as numbers, np.save(path, np.asarray(losses, dtype=float))"
        )
    if dtype.kind not in _NUMERIC_KINDS:
        raise _NotNumbers(f"{name} holds {dtype} values, not numbers")
    if len(shape) > _MAX_DIMS:
        raise _NotNumbers(f"{name} has {len(shape)} dimensions; a curve has one (or rows: two)")
    size = math.prod(shape)  # Python integers: a hostile shape cannot overflow the check
    limit = current().max_points
    if size > limit:
        raise LimitExceededError(
            f"{name} holds {size} values; the limit on points read is {limit}",
            file=str(path),
        )
    return tuple(shape), bool(fortran), dtype


def _array(fh: IO[bytes], path: Path, name: str) -> tuple[np.ndarray, int | None]:
    """The array of numbers a `.npy` stream holds, as float64, and the byte where it was cut
    short (None when whole): a cut array keeps its whole rows before the cut."""
    shape, fortran, dtype = _header(fh, path, name)
    start = fh.tell()
    count = math.prod(shape)
    if count == 0:
        return np.zeros(shape), None
    data = fh.read(count * dtype.itemsize)
    if len(data) == count * dtype.itemsize:
        flat = np.frombuffer(data, dtype=dtype).astype(np.float64)
        return flat.reshape(shape, order="F" if fortran else "C"), None
    width = shape[1] if len(shape) == 2 else 1
    if fortran and width > 1:
        raise CorruptInputError(
            f"{name} is cut short and stored by columns: no whole row is left",
            file=str(path),
            byte=start + len(data),
        )
    rows = len(data) // (dtype.itemsize * width)
    flat = np.frombuffer(data[: rows * width * dtype.itemsize], dtype=dtype).astype(np.float64)
    return flat.reshape((rows, *shape[1:])), start + len(data)


def npy_array(path: Path) -> tuple[np.ndarray, int | None] | None:
    """The numbers of a `.npy` file (1-D or 2-D, as float64) and the byte where it was cut
    short (None when whole); None when the file is no `.npy`. UnknownFormatError says what an
    array of anything but numbers holds; CorruptInputError for a broken header."""
    path = Path(path)
    with open(path, "rb") as fh:
        if fh.read(len(NPY_MAGIC)) != NPY_MAGIC:
            return None
        fh.seek(0)
        try:
            return _array(fh, path, "the array")
        except _NotNumbers as exc:
            raise UnknownFormatError(str(exc), file=str(path)) from None


def npz_array_names(path: Path) -> list[str] | None:
    """The array names of a NumPy `.npz` (a zip of `.npy` arrays at its top and nothing
    else: what `np.savez` writes), read from the zip's directory; None for any other file."""
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.namelist()
    except BROKEN_ZIP:
        return None
    if not members or not all(n.endswith(".npy") and "/" not in n for n in members):
        return None
    return [n[: -len(".npy")] for n in members]


def npz_arrays(path: Path) -> dict[str, np.ndarray]:
    """Each array of numbers in an `.npz` archive under its name (`loss`, `val_loss`), in the
    archive's order; arrays of anything else are left out. CorruptInputError for a broken
    archive; LimitExceededError past the limit on points, counted over the archive."""
    out: dict[str, np.ndarray] = {}
    total, limit = 0, current().max_points
    try:
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                if not info.filename.endswith(".npy"):
                    continue
                name = info.filename[: -len(".npy")]
                try:
                    with archive.open(info) as fh:
                        values, cut = _array(fh, Path(path), name)
                except _NotNumbers:
                    continue
                if cut is not None:
                    raise CorruptInputError(f"{name} is cut short", file=str(path))
                total += values.size
                if total > limit:
                    raise LimitExceededError(
                        f"arrays of more than {limit} values (the limit on points read)",
                        file=str(path),
                    )
                out[name] = values
    except BROKEN_ZIP as exc:
        raise CorruptInputError(f"not a readable .npz archive: {exc}", file=str(path)) from None
    return out
