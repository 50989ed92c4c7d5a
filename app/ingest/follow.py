"""Following a growing log: each `poll()` returns the points written since the previous one.

    follower = Follower("runs/exp1")           # a file or a folder, any supported format
    batch = follower.poll()                    # batch.frame: new points only (normalised frame)

What is read again at each poll is only what grew:

- append-only files are read from where the last poll stopped: TensorBoard event files record
  by record (the bytes since the last whole record are framed and decoded, with the file's
  split folder as context), JSONL and CSV (Keras CSVLogger, plain tables) line by line (a CSV
  tail is read under its header). Only whole records and whole lines are taken: a record or
  line cut by a writer mid-flush is read at the next poll, not reported as an error;
- files rewritten in place (HF `trainer_state.json` at each save, including a new
  `checkpoint-N/` copy; Lightning's `metrics.csv`, which gains columns; W&B exports; MLflow
  stores) and console logs are read again when their size or time changes, and only points not
  seen before are returned: a point is known by (metric, step, how many times that step was
  logged), so the copies agree, and a resumed job that logs the same steps again still adds its
  points;
- a folder is listed again at each poll, so new files (a new event file, a new
  `version_N/`, a new checkpoint) join in; a file that cannot be read yet (empty, half-written
  JSON) is tried again at the next poll.

Segments (the sessions of a run, the frame's `segment` column) continue across polls: a piece
read alone numbers its sessions from 0, so each run keeps its last segment and each metric's
last step, and a new piece's points are numbered on from there, a step that goes back across
the polls' seam starting a new segment as it would in the whole file (ingest._segments' rule).
Files rewritten in place are read whole, so their segments are already the file's. A `segment`
or `phase` key that changes exactly between two polls is read as the same session (the
piece alone cannot see the change; a step going back still shows it).

Runs: a file is one run named as `load_run` would name it; in a folder, each TensorBoard run
folder or each other file is a run named by its path under the folder (HF checkpoints of one
output folder are one run).
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from lossforensics.classifiers.errors import InputError, NoLogsFoundError
from lossforensics.classifiers.frame import concat_frames, empty_frame, make_frame
from lossforensics.ingest._registry import READERS
from lossforensics.ingest._segments import restart_segments
from lossforensics.ingest._source import default_run_name
from lossforensics.ingest._tb_decode import decode
from lossforensics.ingest._tb_framing import HEADER, first_record_frames, walk
from lossforensics.ingest._tb_layout import iter_event_files, split_of
from lossforensics.ingest.base import ReadWarning
from lossforensics.ingest.detect import _walk, sniff_file

TAIL_FORMATS = frozenset({"jsonl", "keras_csv", "csv"})
_CHECKPOINT = re.compile(r"^checkpoint-\d+$")
_TB_FOOTER = 4


@dataclass
class Batch:
    """The points new since the previous poll (a normalised frame, possibly several runs) and
    what the readers said about them."""

    frame: pd.DataFrame
    warnings: list[ReadWarning] = field(default_factory=list)
    files: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.frame)


@dataclass
class _Sessions:
    """Where a followed run's segments stand after the last poll."""

    last_segment: int = 0
    last_step: dict[str, int] = field(default_factory=dict)  # metric -> its last logged step


@dataclass
class _File:
    path: Path
    fmt: str
    run: str
    split: str | None = None
    offset: int = 0  # tail formats: bytes taken so far (whole records / lines)
    header: bytes = b""  # CSV: the header line the tail is read under
    stamp: tuple[int, int] = (-1, -1)  # rewritten formats: (size, mtime_ns) at the last read


class Follower:
    """Follows a log file or folder (see the module docstring).

    Args:
        path: the file or folder to follow.
        format: read only this format (default: detected per file).
        roles: metric name (or glob) -> role, over the inferred roles.
        run: the run's name (a folder with several runs: their prefix).
    """

    def __init__(
        self,
        path: str | Path,
        *,
        format: str | None = None,
        roles: Mapping[str, str] | None = None,
        run: str | None = None,
    ) -> None:
        self.path = Path(path)
        self.format = format
        self.roles = dict(roles) if roles else None
        self.run = run
        self._files: dict[Path, _File] = {}
        self._seen: dict[str, set[tuple[str, int, int]]] = {}  # run -> keys of rewritten points
        self._sessions: dict[str, _Sessions] = {}  # run -> its segments so far (appended files)
        self._unsniffed: set[Path] = set()
        if not self.path.exists():
            raise NoLogsFoundError("no such file or directory", file=str(self.path))

    # -- discovery -----------------------------------------------------------------------

    def _discover(self) -> None:
        root = self.path
        if root.is_file():
            if root not in self._files:
                fmt = self.format or sniff_file(root)
                if fmt is not None:
                    name = self.run or default_run_name(root)
                    self._add(root, fmt, name)
            return
        events = list(iter_event_files(root))
        if events and self.format in (None, "tensorboard"):
            for f in events:
                if f not in self._files:
                    split = split_of(f.parent)
                    self._add(f, "tensorboard", self._name(f.parent.parent if split else f.parent))
                    self._files[f].split = split
            return
        if (
            self.format in (None, "mlflow")
            and "mlflow" in READERS
            and READERS["mlflow"].sniff(root)
        ):
            if root not in self._files:
                self._add(root, "mlflow", self.run or root.resolve().name)
            return
        files, _ = _walk(root)
        for f in files:
            if f in self._files or "tfevents" in f.name:
                continue
            try:
                fmt = sniff_file(f) if f.stat().st_size else None
            except (InputError, OSError):
                fmt = None
            if fmt is None or (self.format and fmt != self.format):
                continue
            base = f.parent.parent if _CHECKPOINT.match(f.parent.name) else f.parent
            stem = (base / f.name.split(".")[0]) if fmt != "hf_trainer" else base
            self._add(f, fmt, self._name(stem))

    def _name(self, where: Path) -> str:
        try:
            rel = where.relative_to(self.path).as_posix()
        except ValueError:
            rel = where.name
        base = self.path.resolve().name if rel in ("", ".") else rel
        return f"{self.run}/{base}" if self.run and rel not in ("", ".") else (self.run or base)

    @property
    def files(self) -> list[str]:
        """The files followed so far."""
        return [str(p) for p in self._files]

    def _add(self, path: Path, fmt: str, run: str) -> None:
        self._files[path] = _File(path, fmt, run)

    # -- reading -------------------------------------------------------------------------

    def poll(self) -> Batch:
        """The points written since the last poll (the first poll: everything so far)."""
        self._discover()
        frames: list[pd.DataFrame] = []
        warnings: list[ReadWarning] = []
        files: list[str] = []
        for state in self._files.values():
            try:
                if state.fmt == "tensorboard":
                    frame = self._continued(state.run, self._tensorboard(state, warnings), True)
                elif state.fmt in TAIL_FORMATS:
                    frame = self._continued(state.run, self._tail(state, warnings), False)
                else:
                    frame = self._reread(state, warnings)
            except InputError:
                continue  # not readable yet (a file being rewritten): tried again next poll
            if len(frame):
                frames.append(frame)
                files.append(str(state.path))
        if not frames:
            return Batch(empty_frame(), warnings, files)
        return Batch(concat_frames(frames) if len(frames) > 1 else frames[0], warnings, files)

    def _continued(self, run: str, frame: pd.DataFrame, unnumbered: bool) -> pd.DataFrame:
        """`frame` (a piece of an appended run, its segments numbered from 0 within the piece;
        `unnumbered`: all 0) with its segments numbered on from the run's earlier pieces."""
        if not len(frame):
            return frame
        sessions = self._sessions.setdefault(run, _Sessions())
        seq = frame["seq"].to_numpy(np.int64)
        order = np.argsort(seq, kind="stable")  # logging order
        names = frame["metric"].astype(str).to_numpy()[order]
        steps = frame["step"].to_numpy(np.int64)[order]
        local = frame["segment"].to_numpy(np.int64)[order]
        codes, uniques = pd.factorize(names)
        # the step each metric was last logged at, as points logged just before the piece
        before = [
            (c, sessions.last_step[m]) for c, m in enumerate(uniques) if m in sessions.last_step
        ]
        if not before and not unnumbered:
            bounds = np.r_[local[0] > 0, np.diff(local) > 0]  # the first piece: as read
        else:
            # the piece's step restarts read with the earlier pieces' context; its own
            # boundaries that its steps do not explain came from session labels
            context_codes = np.array([c for c, _ in before], dtype=np.int64)
            context_steps = np.array([st for _, st in before], dtype=np.int64)
            by_steps = restart_segments(
                np.zeros(len(before) + len(steps), dtype=np.int64),
                np.r_[context_codes, codes],
                np.r_[context_steps, steps],
            )[len(before) :]
            alone = restart_segments(np.zeros(len(steps), dtype=np.int64), codes, steps)
            labelled = (np.diff(local) > 0) & ~(np.diff(alone) > 0)
            bounds = np.r_[by_steps[0] > 0, (np.diff(by_steps) > 0) | labelled]
        segment = sessions.last_segment + np.cumsum(bounds)
        sessions.last_segment = int(segment[-1])
        last = pd.Series(steps).groupby(names, sort=False).last()
        sessions.last_step.update({str(m): int(v) for m, v in last.items()})
        out = np.empty(len(frame), dtype=np.int64)
        out[order] = segment
        return frame.assign(segment=out)

    def _grown(self, state: _File) -> bytes:
        """The file's bytes after the offset (b'' when it did not grow; a file that shrank was
        replaced, and is read from the start)."""
        try:
            size = state.path.stat().st_size
        except OSError:
            return b""
        if size < state.offset:
            state.offset = 0
        if size == state.offset:
            return b""
        with state.path.open("rb") as fh:
            fh.seek(state.offset)
            return fh.read(size - state.offset)

    def _tensorboard(self, state: _File, warnings: list[ReadWarning]) -> pd.DataFrame:
        raw = self._grown(state)
        if len(raw) < HEADER or not first_record_frames(raw[:HEADER]):
            return empty_frame()
        name = str(state.path)
        records, notes = walk(raw, name)
        if not len(records.start):
            return empty_frame()
        # whole records only: a cut last one is read next poll, not reported
        state.offset += int(records.data[-1] + records.size[-1]) + _TB_FOOTER
        warnings.extend(n for n in notes if "truncated last record" not in n.message)
        points = decode(np.frombuffer(raw, dtype=np.uint8), records, name)
        if not len(points):
            return empty_frame()
        names = [f"{state.split}/{t}" if state.split else t for t in points.tags]
        splits = dict.fromkeys(names, state.split) if state.split else None
        return make_frame(
            state.run,
            pd.Categorical.from_codes(points.tag, categories=pd.Index(pd.unique(np.array(names)))),
            points.step,
            points.value,
            points.wall_time,
            roles=self.roles,
            splits=splits,
        )

    def _tail(self, state: _File, warnings: list[ReadWarning]) -> pd.DataFrame:
        raw = self._grown(state)
        end = raw.rfind(b"\n") + 1
        if not end:
            return empty_frame()  # no whole line yet
        chunk = raw[:end]
        if state.fmt != "jsonl":
            if not state.header:
                line_end = chunk.find(b"\n") + 1
                state.header, chunk = chunk[:line_end], chunk[line_end:]
                state.offset += line_end
                end -= line_end
            if not chunk.strip():
                return empty_frame()
            chunk = state.header + chunk
        frame = self._read_bytes(state, chunk, warnings)
        state.offset += end
        return frame

    def _read_bytes(self, state: _File, data: bytes, warnings: list[ReadWarning]) -> pd.DataFrame:
        """Read bytes with the file's reader, through a temporary file of the same name."""
        with tempfile.TemporaryDirectory(prefix="lossforensics-follow-") as tmp:
            copy = Path(tmp) / state.path.name
            copy.write_bytes(data)
            result = READERS.reader(state.fmt).read(copy, roles=self.roles)
        warnings.extend(
            ReadWarning(w.message, str(state.path), w.line, w.byte) for w in result.warnings
        )
        return _renamed(result.frame, state.run)

    def _reread(self, state: _File, warnings: list[ReadWarning]) -> pd.DataFrame:
        try:
            st = state.path.stat()
        except OSError:
            return empty_frame()
        stamp = (st.st_size, st.st_mtime_ns)
        if stamp == state.stamp:
            return empty_frame()
        result = READERS.reader(state.fmt).read(state.path, roles=self.roles)
        state.stamp = stamp
        warnings.extend(result.warnings)
        frame = _renamed(result.frame, state.run)
        if not len(frame):
            return frame
        keys = _point_keys(frame)
        seen = self._seen.setdefault(state.run, set())
        new = np.fromiter((k not in seen for k in keys), dtype=bool, count=len(keys))
        seen.update(k for k, n in zip(keys, new.tolist(), strict=True) if n)
        return frame[new].reset_index(drop=True)


def _renamed(frame: pd.DataFrame, run: str) -> pd.DataFrame:
    if not len(frame):
        return frame
    return frame.assign(run=pd.array([run], dtype="string").take(np.zeros(len(frame), np.intp)))


def _point_keys(frame: pd.DataFrame) -> list[tuple[str, int, int]]:
    """(metric, step, how many times that metric logged that step before) per row."""
    metric = frame["metric"].astype(str)
    step = frame["step"].to_numpy(np.int64)
    nth = frame.groupby([metric, step], sort=False).cumcount().to_numpy()
    return list(zip(metric.tolist(), step.tolist(), nth.tolist(), strict=True))
