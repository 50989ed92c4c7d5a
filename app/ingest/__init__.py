"""Reading training logs into the normalised frame.

    from app.ingest import load_run
    result = load_run("runs/exp1")            # a file or a run directory, any supported format
    result.frame, result.warnings, result.format, result.files

One reader module a format (`READERS`: tensorboard, mlflow, hf_trainer, jsonl, wandb_csv,
lightning_csv, keras_csv, csv), each with `FORMAT`, `sniff(path)` and
`read(path, *, run=None, roles=None)`. `detect_format` picks one by content; `load_run`
detects, plans a directory, reads, and names the runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from app.ingest._registry import READERS
from app.ingest._source import apply_run_name
from app.ingest.base import IngestResult, ReadWarning
from app.ingest.detect import detect_format, name_mismatch, plan_directory
from classifiers.errors import InputError, NoLogsFoundError
from classifiers.frame import concat_frames
from classifiers.roles import check_role

__all__ = ["READERS", "IngestResult", "ReadWarning", "detect_format", "load_run"]


def load_run(
    path: str | Path,
    *,
    format: str | None = None,
    roles: Mapping[str, str] | None = None,
    run: str | None = None,
) -> IngestResult:
    """Read a log file or run directory into one frame (possibly several runs).

    `format` skips detection (a directory then reads only files of that format); `roles` maps
    metric names or glob patterns to roles, over the inferred ones; `run` names a one-run result
    (several runs keep their names under the prefix `run/`). Raises the typed errors of
    classifiers.errors: NoLogsFoundError, EmptyInputError, UnknownFormatError,
    CorruptInputError, InvalidRoleError — each naming the file (and line/byte where known).
    """
    path = Path(path)
    for role in (roles or {}).values():
        check_role(role)  # a typo in a role fails even where no metric matches it
    if format is not None:
        READERS.reader(format)  # unknown format: fail before touching the file
    if not path.exists():
        raise NoLogsFoundError("no such file or directory", file=str(path))
    if path.is_dir():
        result = _load_directory(path, format, roles)
    else:
        fmt = format or detect_format(path)
        result = READERS.reader(fmt).read(path, roles=roles)
        note = None if format else name_mismatch(path, fmt)
        if note:
            result.warnings.insert(0, ReadWarning(note, str(path)))
    result.frame = apply_run_name(result.frame, run)
    return result


def _load_directory(root: Path, format: str | None,
                    roles: Mapping[str, str] | None) -> IngestResult:
    plan = plan_directory(root, format)
    reader = READERS.reader(plan.format)
    results: list[IngestResult] = []
    warnings: list[ReadWarning] = []
    failures: list[InputError] = []
    for source in plan.sources:
        try:
            results.append(reader.read(source, roles=roles))
        except InputError as exc:
            if len(plan.sources) == 1:
                raise
            failures.append(exc)
            warnings.append(ReadWarning(f"not read: {exc.message}", exc.file, exc.line,
                                        exc.byte))
    if not results:
        raise failures[0]
    for fmt, paths in plan.ignored.items():
        shown = ", ".join(str(p.relative_to(root)) for p in paths[:3])
        more = f" and {len(paths) - 3} more" if len(paths) > 3 else ""
        warnings.append(ReadWarning(
            f"also found {fmt} file(s) not read ({shown}{more}); they usually repeat the same "
            f"run: pass format={fmt!r} to read them instead", str(root)))
    if plan.truncated:
        warnings.append(ReadWarning("stopped looking after too many files; point at a "
                                    "sub-directory to read the rest", str(root)))
    if len(results) == 1:
        result = results[0]
        result.warnings.extend(warnings)
        return result
    frames = _distinct_runs(results, plan.sources, root)
    return IngestResult(
        concat_frames(frames),
        [w for r in results for w in r.warnings] + warnings,
        format=plan.format,
        files=[f for r in results for f in r.files],
    )


def _distinct_runs(results: list[IngestResult], sources: list[Path], root: Path) -> list:
    """Frames whose run names do not collide: a repeated name becomes the source's path
    relative to the directory (`exp1/log`)."""
    seen: set[str] = set()
    frames = []
    for result, source in zip(results, sources, strict=False):
        frame = result.frame
        names = set(frame["run"].astype(str).unique())
        if names & seen:
            label = source.relative_to(root).with_suffix("").as_posix()
            frame = apply_run_name(frame, label)
            names = set(frame["run"].astype(str).unique())
        seen |= names
        frames.append(frame)
    return frames
