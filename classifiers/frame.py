"""The normalised frame: the one contract between readers, classifiers, store and API.

A long DataFrame, one row per logged point:

    run        string    run name (one source can hold several runs)
    metric     string    the name as logged ('train/loss', 'validation/epoch_loss', ...)
    role       category  one of lossforensics.classifiers.roles.ROLES
    step       int64     the step as logged (epoch-only logs: the epoch index)
    value      float64   exactly as logged: NaN and +-inf are kept, they are evidence
    wall_time  float64   seconds since the Unix epoch, NaN where unknown
    seq        int64     order of appearance in the source (restarts, repeated steps)
    segment    int64     the session of the run a point belongs to: 0, then +1 at each restart

Runs and segments: a `run`/`experiment`/`trial` key, or a sweep's trials, are separate runs
(separate `run` values); a `segment`/`phase` key, a step counter that goes back or a restart
header are segments of one run. A frame without `segment` (one stored before it existed, or
built by hand) is read as one segment: `validate_frame` adds the column as 0.

Readers build it with `make_frame`; everyone else may call `validate_frame` at a boundary.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Mapping, Sequence
from functools import partial
from typing import Any, NamedTuple, cast

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
from lossforensics.classifiers.errors import InvalidFrameError
from lossforensics.classifiers.roles import ROLES, errors_as_losses, infer_role, override_role

COLUMNS: tuple[str, ...] = (
    "run",
    "metric",
    "role",
    "step",
    "value",
    "wall_time",
    "seq",
    "segment",
)
ROLE_DTYPE = pd.CategoricalDtype(categories=list(ROLES), ordered=False)
_ROLE_CODES = {role: code for code, role in enumerate(ROLE_DTYPE.categories)}
DTYPES: dict[str, pd.api.extensions.ExtensionDtype | np.dtype] = {
    "run": pd.StringDtype(),
    "metric": pd.StringDtype(),
    "role": ROLE_DTYPE,
    "step": np.dtype("int64"),
    "value": np.dtype("float64"),
    "wall_time": np.dtype("float64"),
    "seq": np.dtype("int64"),
    "segment": np.dtype("int64"),
}


def empty_frame() -> pd.DataFrame:
    """A frame with the schema and no rows."""
    return pd.DataFrame({c: pd.Series([], dtype=DTYPES[c]) for c in COLUMNS})


def assign_roles(
    frame: pd.DataFrame,
    overrides: Mapping[str, str] | None = None,
    splits: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """Set the `role` column from the metric names (one inference per distinct metric, not per
    row). `splits` maps a metric to its context ('validation'); `overrides` wins over inference."""
    codes, names = pd.factorize(frame["metric"], use_na_sentinel=True)
    return frame.assign(role=_roles(codes, names, overrides, splits))


def _roles(
    codes: np.ndarray,
    names: Iterable[Any],
    overrides: Mapping[str, str] | None,
    splits: Mapping[str, str] | None,
) -> pd.Categorical:
    """The role column of metric codes into `names` (-1: missing, role 'other')."""
    names = list(names)
    roles = errors_as_losses(
        [str(m) for m in names],
        [
            override_role(str(m), infer_role(str(m), (splits or {}).get(m)), overrides)
            for m in names
        ],
    )
    # each name's role code (-1: not a role, refused by validate_frame), then 'other' for -1
    lookup = np.array([_ROLE_CODES.get(r, -1) for r in roles] + [_ROLE_CODES["other"]], np.int8)
    # every code is -1..len(ROLES)-1 by construction: no range check of a code per point
    return pd.Categorical.from_codes(lookup[codes], dtype=ROLE_DTYPE, validate=False)


class Coded(NamedTuple):
    """A string column as codes into a few distinct names (every code a position in `names`):
    what a reader's interner holds, for make_frame without a pd.Categorical (whose dtype checks
    its names again: ~0.1 ms a column)."""

    codes: np.ndarray
    names: Sequence[str]


# Each string column make_frame took from a few names by their codes, by the identity of the
# arrow array behind it (immutable, so its rows stay what they were): its codes and names in
# order of first appearance, what arrow's dictionary_encode would find by hashing every row
# again (~0.3 ms a 20k-row frame, once per run read). An entry goes when its array does; it
# holds a byte a row (none for one name), not the 8 of the codes handed out.
_CODED: dict[int, tuple[weakref.ref[pa.ChunkedArray], int, np.ndarray | None, list[str]]] = {}
# up to this many names (codes of one byte), each one's first row is found by a pass over the
# codes; past it the passes cost more than the hashing they save, and the column is not noted
_CODED_MAX_NAMES = 16


def coded_strings(strings: pa.ChunkedArray) -> tuple[np.ndarray, np.ndarray] | None:
    """(codes as intp, names as an object array) of a string column make_frame built from codes,
    as `pc.dictionary_encode` numbers them (first appearance); None for any other array."""
    known = _CODED.get(id(strings))
    if known is None or known[0]() is not strings:
        return None
    _, rows, small, names = known
    codes = np.zeros(rows, dtype=np.intp) if small is None else small.astype(np.intp)
    return codes, np.asarray(names, dtype=object)


def _remember_codes(
    column: pd.api.extensions.ExtensionArray, codes: np.ndarray, names: list
) -> None:
    """Note the codes of `column`, `names` taken by `codes` (every code a position in them),
    renumbered by first appearance, the unused names left out."""
    if (
        len(names) > _CODED_MAX_NAMES
        or not isinstance(column, pd.arrays.ArrowStringArray)
        or not all(isinstance(name, str) for name in names)
        or len(set(names)) < len(names)  # one name twice would be one code to arrow
    ):
        return
    strings = column.__arrow_array__()
    small: np.ndarray | None = None  # one name: every code is 0
    found = list(names) if len(codes) else []
    if len(names) > 1:
        used = np.flatnonzero(np.bincount(codes, minlength=len(names)))
        first = [int(np.argmax(codes == code)) for code in used.tolist()]
        order = used[np.argsort(first, kind="stable")]
        renumber = np.zeros(len(names), dtype=np.int8)
        renumber[order] = np.arange(len(order))
        small = renumber[codes]
        found = [names[i] for i in order.tolist()]
    key = id(strings)
    _CODED[key] = (weakref.ref(strings, partial(_forget_codes, key)), len(codes), small, found)


def _forget_codes(key: int, _gone: object) -> None:
    _CODED.pop(key, None)


def _string_column(values: object, n: int) -> pd.api.extensions.ExtensionArray:
    """A string column of length `n`, built without a Python object per row where it can be: one
    string broadcast, or a few names taken by their codes (a Categorical, or Coded: 1M rows in
    milliseconds)."""
    if isinstance(values, pd.Series) and isinstance(values.dtype, pd.CategoricalDtype):
        values = values.array
    if isinstance(values, pd.Categorical):
        values = Coded(values.codes, np.asarray(values.categories, dtype=object).tolist())
    if isinstance(values, Coded) and len(values.names) == 1 and n:
        only = values.names[0]
        if isinstance(only, str) and (values.codes == 0).all():  # one name: a reader's run
            values = only
    if isinstance(values, str):
        column = pd.array([values], dtype="string")
        if isinstance(column, pd.arrays.ArrowStringArray):  # arrow repeats it: no take of n
            repeated = pa.repeat(column.__arrow_array__()[0], n)
            column = pd.arrays.ArrowStringArray(pa.chunked_array([repeated]))
            _remember_codes(column, np.zeros(n, dtype=np.intp), [values])
            return column
        return column.take(np.zeros(n, dtype=np.intp))
    if isinstance(values, Coded):
        codes = np.asarray(values.codes)
        names = pd.array(np.asarray(values.names, dtype=object), dtype="string")
        if not isinstance(names, pd.arrays.ArrowStringArray) or (n and codes.min() < 0):
            return names.take(codes.astype(np.intp), allow_fill=True)  # missing: NA
        # arrow's take by the codes as they are (a Categorical's: int8 for a few names): pandas'
        # take widens them first and checks each for a missing one, 2x the cost
        column = pd.arrays.ArrowStringArray(pc.take(names.__arrow_array__(), codes))
        _remember_codes(column, codes, list(values.names))
        return column
    return pd.array(np.asarray(values, dtype=object), dtype="string")


def make_frame(
    run: str | Sequence[str] | np.ndarray | pd.Categorical[str] | Coded,
    metric: Sequence[str] | np.ndarray | pd.Series | pd.Categorical[str] | Coded,
    step: Sequence[int] | np.ndarray,
    value: Sequence[float] | np.ndarray,
    wall_time: Sequence[float] | np.ndarray | None = None,
    seq: Sequence[int] | np.ndarray | None = None,
    *,
    roles: Mapping[str, str] | None = None,
    splits: Mapping[str, str] | None = None,
    segment: Sequence[int] | np.ndarray | None = None,
    copy: bool = True,
) -> pd.DataFrame:
    """Build a valid frame from columns (arrays, not rows: readers stay vectorised).
    `seq` defaults to the order given; `wall_time` to NaN; `segment` to 0. `run` and `metric`
    may be codes + names (a pd.Categorical, or Coded): the fast way to pass a million rows of a
    few names. `copy=False`: the arrays are the caller's to give away (its own, writable, held
    by nothing else), and the frame keeps them as its columns, without pandas' copy of each and
    the blocks it would stack the copies into (~0.1 ms a 20k-row frame)."""
    n = len(step)
    if isinstance(metric, pd.Series) and isinstance(metric.dtype, pd.CategoricalDtype):
        metric = metric.array
    if isinstance(metric, pd.Categorical):
        metric = Coded(metric.codes, list(metric.categories))
    run_names, metric_names = _string_column(run, n), _string_column(metric, n)
    role = (  # roles from the few names: no factorize of 1M strings
        _roles(np.asarray(metric.codes), list(metric.names), roles, splits)
        if isinstance(metric, Coded)
        else pd.Categorical.from_codes(np.zeros(n, dtype=np.int8), dtype=ROLE_DTYPE)
    )
    df = pd.DataFrame(
        {
            "run": run_names,
            "metric": metric_names,
            "role": role,
            "step": np.asarray(step, dtype=np.int64),
            "value": np.asarray(value, dtype=np.float64),
            "wall_time": (
                np.full(n, np.nan) if wall_time is None else np.asarray(wall_time, dtype=np.float64)
            ),
            "seq": np.arange(n, dtype=np.int64) if seq is None else np.asarray(seq, dtype=np.int64),
            "segment": (
                np.zeros(n, dtype=np.int64)
                if segment is None
                else np.asarray(segment, dtype=np.int64)
            ),
        },
        copy=copy,
    )
    if not isinstance(metric, Coded):
        return validate_frame(assign_roles(df, roles, splits))
    if _valid_columns(run_names, metric_names, role):
        return df  # schema order and dtypes by construction: what validate_frame returns
    return validate_frame(df)


def _valid_columns(
    run: pd.api.extensions.ExtensionArray,
    metric: pd.api.extensions.ExtensionArray,
    role: pd.Categorical,
) -> bool:
    """validate_frame's checks of a frame make_frame built, read from its arrays before they
    become columns (column lookups and a dtypes Series cost ~0.1 ms a frame)."""
    return (
        run.dtype == DTYPES["run"]
        and metric.dtype == DTYPES["metric"]
        and not run.isna().any()
        and not metric.isna().any()
        and not (role.codes < 0).any()
    )


def concat_frames(frames: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """Stack frames from several sources, renumbering `seq` so it stays a total order."""
    frames = [f for f in frames if len(f)]
    if not frames:
        return empty_frame()
    offset = 0
    parts = []
    for f in frames:
        g = f.copy()
        g["seq"] = g["seq"].to_numpy() - g["seq"].min() + offset if len(g) else g["seq"]
        offset = int(g["seq"].max()) + 1
        parts.append(g)
    out = pd.concat(parts, ignore_index=True)
    out["role"] = out["role"].astype(ROLE_DTYPE)
    return validate_frame(out)


def validate_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """Check columns and dtypes; coerce what is safely coercible; raise InvalidFrameError with the
    column at fault otherwise. Returns the frame with the columns in schema order: the same
    object when it already is a valid frame (no copy: diagnosis validates what ingest built)."""
    if not isinstance(frame, pd.DataFrame):
        raise InvalidFrameError(f"expected a pandas DataFrame, got {type(frame).__name__}")
    if "segment" not in frame.columns:  # stored or built before segments: one session
        frame = frame.assign(segment=np.zeros(len(frame), dtype=np.int64))
    missing = [c for c in COLUMNS if c not in frame.columns]
    if missing:
        raise InvalidFrameError(f"frame is missing column(s): {', '.join(missing)}")
    out = frame if tuple(frame.columns) == COLUMNS else frame.loc[:, list(COLUMNS)]
    fixes: dict[str, pd.Series] = {}
    # dtypes read once (a column lookup each costs more than the check: this runs per diagnosis)
    for col, have in zip(COLUMNS, out.dtypes.tolist(), strict=True):
        want = DTYPES[col]
        if have == want:
            continue
        try:
            if col == "role":
                bad = set(out[col].dropna().astype(str)) - set(ROLES)
                if bad:
                    raise InvalidFrameError(f"column 'role' has unknown role(s): {sorted(bad)}")
                fixes[col] = out[col].astype(str).astype(ROLE_DTYPE)
            elif col in ("step", "seq", "segment"):
                fixes[col] = pd.to_numeric(out[col], errors="raise").astype(np.int64)
            else:
                fixes[col] = out[col].astype(want)
        except InvalidFrameError:
            raise
        except (TypeError, ValueError) as exc:
            raise InvalidFrameError(f"column {col!r} cannot be {want}: {exc}") from None
    if fixes:
        out = out.assign(**fixes)
    if (cast(pd.Categorical, out["role"].array).codes < 0).any():  # missing: code -1
        raise InvalidFrameError("column 'role' has missing values")
    if out["run"].array.isna().any() or out["metric"].array.isna().any():
        raise InvalidFrameError("columns 'run' and 'metric' must not have missing values")
    return out
