"""Reading training logs into the normalised frame.

    from lossforensics.ingest import load_run
    result = load_run("runs/exp1")            # a file or a run directory, any supported format
    result.frame, result.warnings, result.format, result.files

One reader module a format (`READERS`: tensorboard, mlflow, hf_trainer, history_json, jsonl,
series_file, wandb_csv, lightning_csv, keras_csv, csv, printed_table, console), each with
`FORMAT`, `sniff(path)` and `read(path, *, run=None, roles=None)`. `detect_format` picks one by
content; `load_run` detects, plans a directory, reads, and names the runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from lossforensics.classifiers.errors import InputError, NoLogsFoundError
from lossforensics.classifiers.frame import concat_frames
from lossforensics.classifiers.roles import check_role
from lossforensics.ingest._final_evaluation import drop_final_evaluations
from lossforensics.ingest._part_sums import add_part_sums
from lossforensics.ingest._registry import READERS
from lossforensics.ingest._source import apply_run_name
from lossforensics.ingest.base import IngestResult, ReadWarning
from lossforensics.ingest.detect import detect_format, name_mismatch, plan_directory

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
    lossforensics.classifiers.errors: NoLogsFoundError, EmptyInputError, UnknownFormatError,
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
    drop_final_evaluations(result)
    add_part_sums(result)
    result.frame = apply_run_name(result.frame, run)
    return result


def _load_directory(
    root: Path, format: str | None, roles: Mapping[str, str] | None
) -> IngestResult:
    """Read a directory in one format (frameworks often log the same run twice, e.g. HF event
    files beside trainer_state.json). When none of the chosen format's files can be read, the
    next format found is read instead, so one empty or broken file does not hide the rest."""
    plan = plan_directory(root, format)
    candidates = [(plan.format, plan.sources), *plan.ignored.items()]
    warnings: list[ReadWarning] = []
    failures: list[InputError] = []
    tried: list[str] = []
    for fmt, sources in candidates:
        results = _read_sources(READERS.reader(fmt), sources, roles, warnings, failures)
        if results:
            break
        tried.append(fmt)
    else:
        raise failures[0]
    for other, paths in plan.ignored.items():
        if other == fmt or other in tried:
            continue  # the format read, or one tried first whose files all failed (said above)
        shown = ", ".join(str(p.relative_to(root)) for p in paths[:3])
        more = f" and {len(paths) - 3} more" if len(paths) > 3 else ""
        warnings.append(
            ReadWarning(
                f"also found {other} file(s) not read ({shown}{more}); a directory is read in one "
                f"format, as frameworks often log one run twice: read them with format {other!r} "
                f"(`--format {other}` on the command line), or audit the folder to read every run",
                str(root),
            )
        )
    if plan.superseded:
        shown = ", ".join(str(p.relative_to(root)) for p in plan.superseded[:3])
        more = f" and {len(plan.superseded) - 3} more" if len(plan.superseded) > 3 else ""
        warnings.append(
            ReadWarning(
                f"older checkpoint states not read ({shown}{more}): each holds the beginning of "
                "the same log_history, so only the most complete one is read",
                str(root),
            )
        )
    if plan.truncated:
        warnings.append(
            ReadWarning(
                "stopped looking after too many files; point at a sub-directory to read the rest",
                str(root),
            )
        )
    if len(results) == 1:
        result = results[0]
        result.warnings.extend(warnings)
        return result
    frames = _distinct_runs(results, sources, root)
    return IngestResult(
        concat_frames(frames),
        [w for r in results for w in r.warnings] + warnings,
        format=fmt,
        files=[f for r in results for f in r.files],
        detail=_details(results, root),
    )


def _details(results: list[IngestResult], root: Path) -> str | None:
    """What the readers recognised in a folder's files: one phrase when they agree, else each
    file's own (`train.log: console log, ... | val.log: ...`)."""
    said = [(r.files[0] if r.files else "", r.detail) for r in results if r.detail]
    if len({d for _, d in said}) <= 1:
        return said[0][1] if said else None
    return " | ".join(f"{_shown(f, root)}: {d}" for f, d in said)


def _shown(file: str, root: Path) -> str:
    try:
        return Path(file).relative_to(root).as_posix()
    except ValueError:
        return file


def _read_sources(
    reader,
    sources: list[Path],
    roles: Mapping[str, str] | None,
    warnings: list[ReadWarning],
    failures: list[InputError],
) -> list[IngestResult]:
    """Every source one reader can read; each failure is kept (to raise when nothing at all
    could be read) and said in a warning."""
    results = []
    for source in sources:
        try:
            results.append(reader.read(source, roles=roles))
        except InputError as exc:
            failures.append(exc)
            warnings.append(ReadWarning(f"not read: {exc.message}", exc.file, exc.line, exc.byte))
    return results


def _distinct_runs(results: list[IngestResult], sources: list[Path], root: Path) -> list:
    """Frames whose run names do not collide: a repeated name becomes the source's path
    relative to the directory (`exp1/log`), unless the files sit side by side and log disjoint
    losses and scores under that name (a train and a val file, a W&B chart export per metric;
    step columns and companions, role `other`, may repeat): those are one run's files, and its
    curves stay together."""
    seen: dict[str, tuple[Path, set[str]]] = {}  # run name -> (its folder, its metrics so far)
    frames = []
    for result, source in zip(results, sources, strict=False):
        frame = result.frame
        metrics = _metrics_by_run(frame)
        clashes = metrics.keys() & seen.keys()
        if clashes and not _more_of_the_same_runs(clashes, metrics, source.parent, seen):
            frame = apply_run_name(frame, source.relative_to(root).with_suffix("").as_posix())
            metrics = _metrics_by_run(frame)
        for name, logged in metrics.items():
            seen[name] = (source.parent, seen.get(name, (source.parent, set()))[1] | logged)
        frames.append(frame)
    return frames


def _more_of_the_same_runs(
    names: set[str],
    metrics: dict[str, set[str]],
    folder: Path,
    seen: dict[str, tuple[Path, set[str]]],
) -> bool:
    """Every clashing run name was read from this folder and logs none of these metrics yet."""
    return all(seen[n][0] == folder and not seen[n][1] & metrics[n] for n in names)


def _metrics_by_run(frame) -> dict[str, set[str]]:
    """Each run's losses and scores (metrics other than role `other`, which two files of one
    run may share: a step column, a W&B companion); every run is a key, with none too."""
    out: dict[str, set[str]] = {str(run): set() for run in frame["run"].unique()}
    kept = frame.loc[(frame["role"] != "other").to_numpy(), ["run", "metric"]]
    for run, metric in kept.drop_duplicates().itertuples(index=False):
        out[str(run)].add(str(metric))
    return out
