"""The prefixes loggers put before a message: MPI / torchrun rank tags (`[1,0]<stdout>:`,
`[rank0]:`), a timestamp (kept as the wall time) or a bracketed time of day, a level (`INFO`,
`| INFO     |`, also at the head of a line, as loguru prints it without its time), a loguru
`module:function:line -` (or `module:line -`, as YOLOX prints it),
Python logging's `INFO:root:`, a logger's name before its level (`__main__ - INFO - `, the
logging HOWTO's format), the place the logger was called from, after a timestamp or a
level (`train.py:88`, `[train.py:88:main]`, `(train.py:88)`, `[train.py][line:88]`,
`train.py[line:88]`: a file name
and line number, never a metric; or a module and line before the level, `(trainer:732) INFO:`,
after ESPnet's `[host] ` and time), and glog's `I0728 23:55:39.066728  4259 solver.cpp:218] `
(Caffe, PaddlePaddle, TensorFlow's C++ side; no year, so no wall time), a level before the
timestamp (`INFO 2023-01-01 12:00:00,123 train.py:88] `) and syslog's `Jan 01 12:00:00 host
train[123]: ` (no year: no wall time), and transformers' and LLaMA-Factory's `[INFO|2024-11-26
22:09:01] logging.py:157 >> ` (or `[INFO|trainer.py:2012] <time> >> `). What is left is the
message; a prefix printed on a line of its own (a logging format ending in a newline) leaves an
empty message, and the metrics on the next line are read as any other line."""

from __future__ import annotations

import calendar
import re

# where the logger was called: a Python file (its line and function after it, bare or bracketed)
_PY = r"[\w.<>\-/\\]+\.py"
_RANK = re.compile(r"^\s*(?:\[\d+,\d+\]<std(?:out|err)>:|\[rank\s*\d+\]:?|\[\d+\]:)\s*")
# a host name in brackets before the date (ESPnet's `[host0] 2023-01-01 10:00:00,000 ...`)
_HOST = re.compile(r"^\[[A-Za-z][\w.\-]*\]\s+(?=\[?\d{4}[-/]\d{2}[-/]\d{2})")
_STAMP = re.compile(
    r"^\s*\[?(?P<y>\d{4})[-/](?P<mo>\d{2})[-/](?P<d>\d{2})[ T_](?P<h>\d{2}):(?P<mi>\d{2}):"
    r"(?P<s>\d{2})(?P<f>[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?\]?"
)
_LEVEL = re.compile(
    # a process id may come first (`P28282 INFO`, FuxiCTR's `%(process)d`)
    r"^[\s|:,\-\]]*(?:P\d+\s+)?"
    r"\[?\s*(?:INFO|DEBUG|WARNING|WARN|ERROR|CRITICAL|TRACE|SUCCESS|NOTICE)\s*\]?"
    r"(?:\s*\|\s*[\w.<>]+(?::[\w.<>]+)?:\d+\s*-)?"  # loguru: module[:function]:line -
    r"(?::[\w.<>]+:)?"  # logging's default INFO:root:
    r"[\s|:\-]*"
)
# transformers' and LLaMA-Factory's logging format: the level and, after a bar, the time or the
# place of the call in one bracket, then the other, then `>> ` (`[INFO|2024-11-26 22:09:01]
# logging.py:157 >> `, `[INFO|trainer.py:2012] 2024-11-26 22:09:01,123 >> `)
_PIPE_LEVEL = re.compile(
    r"^\[(?:INFO|DEBUG|WARNING|WARN|ERROR|CRITICAL)\|(?P<inner>[^\]\n]{1,80})\]\s*"
)
_PIPE_REST = re.compile(rf"^(?:{_PY}:\d+\s*)?(?:>>\s?)?")
# a time of day alone, `[03:23:49.951215] ` (the MAE / DeiT scripts' print): no date, so no
# wall time is taken from it
_CLOCK = re.compile(r"^\s*\[\d{2}:\d{2}:\d{2}(?:[.,]\d+)?\]\s*")
# glog: severity, month and day, time of day, thread id, file:line]
_GLOG = re.compile(r"^\s*[IWEF]\d{4} \d{2}:\d{2}:\d{2}(?:\.\d+)?\s+\d+\s+[\w.\-]+:\d+\]\s?")
# syslog / journald: month, day, time of day, host, program[pid]:
_SYSLOG = re.compile(
    r"^(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d \d{2}:\d{2}:\d{2} \S+ "
    r"[\w.\-/]+(?:\[\d+\])?: "
)
# where the logger was called, bare or bracketed
_SOURCE = re.compile(
    rf"^[\s|\-]*(?:\[{_PY}(?::\d+)?(?::[\w.<>]+)?\]|\({_PY}(?::\d+)?(?::[\w.<>]+)?\)"
    rf"|{_PY}:\d+(?::[\w.<>]+)?\]?|{_PY}\[line:?\s*\d+\]|\[line:?\s*\d+\]"
    # or a module and line before a level, `(trainer:732) INFO:` (ESPnet's format)
    r"|\([A-Za-z_][\w.]*:\d+\)(?=\s*(?:INFO|DEBUG|WARNING|WARN|ERROR|CRITICAL)\b))"
    r"(?![\w.])[\s|:\-]*"
)
# the logger's name before its level, as the logging HOWTO's format prints it after the time
# (`%(asctime)s - %(name)s - %(levelname)s - %(message)s`: `__main__ - INFO - `; TransReID's
# `transreid.train INFO: `): taken only when a level follows, so a message that opens with a
# word and a dash is left alone
_LOGGER_NAME = re.compile(
    r"^[\s|:\-]*[A-Za-z_][\w.<>]*(?:\s*[|:\-]\s*|\s+)"
    r"(?=\[?(?:INFO|DEBUG|WARNING|WARN|ERROR|CRITICAL|TRACE|SUCCESS|NOTICE)\b)"
)
# `name:number` fields between the time and the level: OLMo's host and rank, then its logger
# and line (`quick-rain-03:0\tolmo.train:979\tINFO\t`); taken only when a level follows
_TAGS_BEFORE_LEVEL = re.compile(
    r"^[\s|\-]*(?:[A-Za-z][\w.\-]*:\d+\s+){1,3}"
    r"(?=\[?(?:INFO|DEBUG|WARNING|WARN|ERROR|CRITICAL|TRACE|SUCCESS|NOTICE)\b)"
)
# Swin Transformer's logger (and its forks'): the time, the logger's name and where it was
# called in brackets, `[2021-03-27 10:04:38 swin_tiny](main.py 225): INFO ` on the console,
# with a space before the place in its log file (`[..swin_tiny] (main.py 225): INFO `); the
# name and the place after the time
_NAME_AND_PLACE = re.compile(rf"^\s*[^\s\]]+\] ?\({_PY}\s+\d+\)\s*:\s*")
# DeepSpeed's rank tag after its level and place (`[INFO] [logging.py:96:log_dist] [Rank 0] `)
_RANK_TAG = re.compile(r"^\s*\[Rank\s+\d+\]\s*")
# a process id and a thread's name in brackets before a bracketed level (MONAI Label's
# `[19180] [MainThread] [INFO] `)
_FIELDS_BEFORE_LEVEL = re.compile(
    r"^\s*(?:\[[\w.\-]+\]\s*){1,3}"
    r"(?=\[(?:INFO|DEBUG|WARNING|WARN|ERROR|CRITICAL|TRACE|SUCCESS|NOTICE)\])"
)
# the logger's name and line in brackets after the level, then a dash (MONAI's and ignite's
# `(ignite.engine.engine.SupervisedTrainer:294) - `)
_NAME_LINE = re.compile(r"^\s*\([A-Za-z_][\w.]*:\d+\)\s*-\s")
# Ray's worker tag before each line a remote task prints (`(main_task pid=13624) `,
# `(TaskRunner pid=2510, ip=10.0.0.3) `: verl, TinyZero and other Ray-launched trainers)
_RAY_WORKER = re.compile(r"^\((?:[A-Za-z_][\w.]*\s+)?pid=\d+(?:,\s*ip=[\d.]+)?\)\s*")
# `time.ctime()`'s stamp at the head of a line (`Sun Nov 29 00:57:11 2026 `, a script's
# `print(time.ctime(), ...)`; in brackets, `[ Wed Jun  6 16:01:16 2018 ] `, the `print_log` of
# ST-GCN and the skeleton-action repos built on it: 2s-AGCN, MS-G3D, CTR-GCN): no metric (its
# day was read as one); taken off without a wall time, as the glog and syslog stamps are
_CTIME = re.compile(
    r"^(?:\[ ?)?(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
    r" +\d{1,2} \d{2}:\d{2}:\d{2} \d{4}(?: ?\])?[\s:,|\-]*"
)
_SEP = re.compile(r"^[\s|:\-]+")
_DAYS: dict[tuple[str, str, str], int] = {}


def _seconds(m: re.Match[str]) -> float:
    key = (m["y"], m["mo"], m["d"])
    day = _DAYS.get(key)
    if day is None:
        try:
            day = calendar.timegm((int(m["y"]), int(m["mo"]), int(m["d"]), 0, 0, 0))
        except (ValueError, OverflowError):
            day = -1
        _DAYS[key] = day
    if day < 0:
        return float("nan")
    frac = float("0." + m["f"][1:]) if m["f"] else 0.0
    return day + int(m["h"]) * 3600 + int(m["mi"]) * 60 + int(m["s"]) + frac


def stamp_match(line: str) -> tuple[re.Match[str], int] | None:
    """The timestamp `strip_prefix` reads on this line, and where the text it matched begins."""
    start = 0
    if line[:1] == "[" and (m := _RANK.match(line) or _HOST.match(line)):
        start = m.end()
    if line[start : start + 1] == "[" and (p := _PIPE_LEVEL.match(line, start)):
        for at in (p.start("inner"), p.end()):
            if m := _STAMP.match(line[at:]):
                return m, at
        return None
    c = line[start : start + 1]
    if c.isdigit() or c in " [":
        m = _STAMP.match(line[start:])
        if m:
            return m, start
    if c in "IDWEC|" and (lv := _LEVEL.match(line, start)) and lv.end() > start:
        at = lv.end()
        if line[at : at + 1].isdigit() and (m := _STAMP.match(line[at:])):
            return m, at
    return None


# the glyphs of a progress bar drawn in a terminal and left before the row printed after it
# (fastprogress under fastai and tsai: `██182  0.258223  0.588670  0.796438  00:00`)
_BAR_GLYPHS = "█▉▊▋▌▍▎▏"
_GLYPH_RUN = re.compile(rf"[{_BAR_GLYPHS}]+(?=\s*\d)")


def strip_prefix(line: str) -> tuple[str, float]:
    """(the message, its wall time in seconds since the epoch, NaN when the line has none).
    Timestamps are taken as UTC: only differences between them matter here."""
    if line and line[0] in _BAR_GLYPHS and (g := _GLYPH_RUN.match(line)):
        line = line[g.end() :]
    if line[:1] == "(" and (m := _RAY_WORKER.match(line)):
        line = line[m.end() :]
    if line[:1] == "[" and (m := _RANK.match(line) or _HOST.match(line)):
        line = line[m.end() :]
    if line[:1] == "[" and (p := _PIPE_LEVEL.match(line)):
        return _after_pipe_level(p["inner"], line[p.end() :])
    wall = float("nan")
    c = line[:1]
    if c.isdigit() or c in " [":
        m = _STAMP.match(line)
        if m:
            wall = _seconds(m)
            rest = _level_and_source(line[m.end() :])
            return (rest if rest is not None else _SEP.sub("", line[m.end() :])), wall
        if c == "[" and (m := _CLOCK.match(line)):
            line = line[m.end() :]
            c = line[:1]
    if (c in "MTWFS" or c == "[") and (ct := _CTIME.match(line)):
        return line[ct.end() :], wall
    if c in "IWEF" and (g := _GLOG.match(line)):
        return line[g.end() :], wall
    if c in "IDWEC|" and (lv := _LEVEL.match(line)) and lv.end() > 0:
        after = line[lv.end() :]
        if after[:1].isdigit() and (m := _STAMP.match(after)):  # `INFO 2023-01-01 12:00:00 `
            rest = _level_and_source(after[m.end() :])
            return (rest if rest is not None else _SEP.sub("", after[m.end() :])), _seconds(m)
        line = _level_and_source(line) or ""
    elif c in "JFMASOND" and (sy := _SYSLOG.match(line)):
        return line[sy.end() :], wall
    return line, wall


def _after_pipe_level(inner: str, rest: str) -> tuple[str, float]:
    """The message and wall time of a `[LEVEL|time-or-place] place-or-time >> message` line."""
    wall = float("nan")
    if (m := _STAMP.match(inner)) is not None:
        wall = _seconds(m)
    elif (m := _STAMP.match(rest)) is not None:
        wall, rest = _seconds(m), rest[m.end() :].lstrip()
    place = _PIPE_REST.match(rest)
    return (rest[place.end() :] if place else rest), wall


def _level_and_source(line: str) -> str | None:
    """`line` without the level and the source location at its head, in either order
    (`[INFO] train.py:88 - `, `[train.py][line:88][INFO] `); None when it has neither."""
    rest = line
    for _ in range(4):
        m = (
            _LEVEL.match(rest)
            or _SOURCE.match(rest)
            or _LOGGER_NAME.match(rest)
            or _TAGS_BEFORE_LEVEL.match(rest)
            or _NAME_AND_PLACE.match(rest)
            or _RANK_TAG.match(rest)
            or _FIELDS_BEFORE_LEVEL.match(rest)
            or _NAME_LINE.match(rest)
        )
        if m is None:
            break
        rest = rest[m.end() :]
    return rest if rest is not line else None
