"""Lines -> records, with one style.

A *record* is one line that carries metrics: how many points it gives, its counters (epoch,
step, batch; a line with metrics but no counter takes the last counters seen, so a step printed
on one line and its losses on the next are one record), whether it is a train, eval or summary
line, its run and segment, and its metrics. Lines are read in two passes: while reading, a line
is looked up by its shape (`_plan`) and only what depends on the lines before it is decided (a
restart, a trial, the counters a metrics-only line borrows); the numbers are read every CHUNK
records (or MAX_PENDING_CHARS of lines), for all the lines of one shape at once, and packed
into arrays. A field of one value throughout a packing (no batch counter, one run, no
timestamp) is kept as a view of that value, so memory grows with the points kept and the
counters they vary by, never with the text. A line whose shape has no plan is read with the
style's patterns (`Parser.line`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
from lossforensics.ingest.console._columns import (
    Group,
    compact,
    counter,
    floats,
    line_counters,
)
from lossforensics.ingest.console._plan import (
    BORROW,
    COUNTER_NAMES,
    COUNTERS,
    MAX_PLANS,
    MAX_SHAPE,
    NOTHING,
    OWN,
    RESTART,
    TRIAL,
    VALUE,
    Plan,
    classify,
    compile_line,
    counter_cut,
    counter_line_ends,
    ends_context,
    find_pairs,
    line_prefixes,
    most_words,
    skeletons,
    with_step_total,
    words_between,
)
from lossforensics.ingest.console._prefix import strip_prefix
from lossforensics.ingest.console._style import Style, trial_name

CHUNK = 65_536
# lines after a counter, or after the record's last metrics-only line, within which a
# metrics-only line still belongs to it: a record spread over lines goes on while its lines keep
# coming (PointNet prints an epoch's five training files, then its evaluation, under one header)
CONTEXT_SPAN = 12
NO_COUNTERS = (-1,) * len(COUNTER_NAMES)
# the number of an epoch held above a log's first header is at least 1: the styles that place
# such lines (Keras) count epochs from 1, so the lines above `Epoch 1/20` are no epoch's
_FIRST_KERAS_EPOCH = 1
# metrics-only lines held above a first header at most: a cut notebook output starts with an
# epoch's last bar or its redraws; a log that holds more before any header has none to place
# them by, and they are dropped as any line without a counter is
_MAX_LEADING = 10_000
MAX_PENDING_CHARS = 8 << 20  # lines kept for the next packing: past this, pack now
REC_FIELDS: dict[str, type] = {
    "points": np.int32,
    "epoch": np.int64,
    "step": np.int64,
    "batch": np.int64,
    "batches": np.int64,
    "kind": np.int8,
    "run": np.int32,
    "segment": np.int64,
    "wall": np.float64,
}


@dataclass
class Parsed:
    """What one style made of a text: records, points and counts."""

    style: Style
    lines: int = 0
    records: int = 0
    keys: dict[str, int] = field(default_factory=dict)
    runs: list[str] = field(default_factory=lambda: [""])
    rec: dict[str, list[np.ndarray]] = field(default_factory=dict)
    pts: dict[str, list[np.ndarray]] = field(default_factory=dict)
    restarts: int = 0

    def key_names(self) -> list[str]:
        return list(self.keys)


def _epoch_only(plan: Any) -> bool:
    """Whether a plan's line prints an epoch and no step or batch (`Style.epoch_lines_lend`)."""
    spans = plan.counters
    return bool(spans) and spans[0] >= 0 and spans[2] < 0 and spans[4] < 0


class Parser:
    """Feeds lines through one style, accumulating records and points."""

    def __init__(self, style: Style, *, plans: bool = True) -> None:
        """`plans=False` reads every line with the style's patterns (the reference reading
        that plans must agree with; slow)."""
        self.style = style
        self._max_plans = MAX_PLANS if plans else 0
        self.out = Parsed(style)
        # the counters a metrics-only line takes: the (line, plan) that printed them, or
        # (epoch, step, batch, batches) when that line was read with the patterns
        self._context: tuple[Any, ...] | None = None
        self._context_line = 0
        self._run = 0
        self._segment = 0
        # records not yet packed: line number, line, plan index (-1: read with the patterns),
        # the row of the counters it borrows in `_borrowed` (-1: its own counters), run, segment
        self._r_num: list[int] = []
        self._r_raw: list[str | None] = []
        self._r_pid: list[int] = []
        self._r_ctx: list[int] = []
        self._borrowed: list[np.ndarray] = []  # counter rows (COUNTER_NAMES), until packed
        self._borrowed_rows = 0
        self._none_row = -1  # the row of NO_COUNTERS, once added
        self._r_run: list[int] = []
        self._r_seg: list[int] = []
        # the epoch the last header line printed (`Epoch 3/20` on a line of its own), lent to
        # records that print a batch or step but no epoch; -1 before any (and after a restart)
        self._outer = -1
        self._r_outer: list[int] = []
        self._r_chars = 0  # characters of the lines kept for packing
        self._outcomes = np.empty(0, dtype=np.int8)
        self._ends = np.empty(0, dtype=bool)
        self._epoch_only = np.empty(0, dtype=bool)  # per plan: an epoch and no step or batch
        self._explicit: dict[int, tuple[Any, ...]] = {}  # records read with the patterns
        self._shapes: dict[str, int] = {}  # skeleton -> plan index, -1: read with the patterns
        self._plans: list[Plan] = []
        self._days: dict[int, float] = {}  # yyyymmdd -> its first second
        self._opened = False  # set by `line` on a counter line that opens a record
        # set by `line` on a line the style passes over (its `skip`, or not its signature)
        self._passed_over = False
        # lines of metrics read before the log's first counter line, held until that line says
        # which epoch they are (`Style.leading_epoch`); None once it came, or for other styles
        self._leading: list[tuple[Any, ...]] | None = [] if style.leading_epoch else None

    # ------------------------------------------------------------------ reading

    def feed(self, lines: Iterable[str]) -> None:
        """Read lines (a block of cleaned text with its skeletons is faster: `feed_block`)."""
        batch: list[str] = []
        for raw in lines:
            batch.append(raw)
            if len(batch) >= CHUNK:
                self.feed_block(batch, skeletons("\n".join(batch)))
                batch = []
        if batch:
            self.feed_block(batch, skeletons("\n".join(batch)))

    def feed_block(self, lines: list[str], shapes: list[str]) -> None:
        """Read `lines`, given each one's skeleton (`_plan.skeletons`)."""
        known = self._shapes
        pids = list(map(known.get, shapes))
        if None in pids:  # plan the new shapes first: a plan does not depend on other lines
            for i in [i for i, p in enumerate(pids) if p is None]:
                self._plan_of(shapes[i], lines[i])
            pids = list(map(known.get, shapes))
        pending = len(self._r_num)
        if None in pids or not self._in_bulk(lines, pids):
            self._one_by_one(lines, shapes)
        if len(self._r_num) > pending:
            self._r_chars += sum(map(len, lines))  # at most: the records' lines among them
        if len(self._r_num) >= CHUNK or self._r_chars >= MAX_PENDING_CHARS:
            self._flush()

    def _in_bulk(self, lines: list[str], pids: list[Any]) -> bool:
        """Read a block whose every line has a plan and no header, deciding the counters each
        metrics-only line borrows with arrays; False (nothing read) when the block has another
        kind of line."""
        pid = np.asarray(pids, dtype=np.int64)
        if (pid < 0).any():
            return False
        plans = self._plans
        if len(self._outcomes) != len(plans):
            self._outcomes = np.asarray([p.outcome for p in plans], dtype=np.int8)
            self._ends = np.asarray([p.ends_context for p in plans], dtype=bool)
            self._epoch_only = np.asarray([_epoch_only(p) for p in plans], dtype=bool)
        oc, ends = self._outcomes[pid], self._ends[pid]
        if ((oc == TRIAL) | (oc == RESTART)).any():
            return False
        if self._leading is not None and (self._leading or self._holds(oc)):
            return False  # lines to hold before the first counter line: one by one
        n = len(lines)
        first = self.out.lines + 1
        at = np.arange(n)
        sets = (oc == OWN) | ((oc == COUNTERS) & ~ends)
        resets = ((oc == NOTHING) | (oc == COUNTERS)) & ends
        last_set = np.maximum.accumulate(np.where(sets, at, -1))
        last_reset = np.maximum.accumulate(np.where(resets, at, -1))
        borrow = np.flatnonzero(oc == BORROW)
        src = last_set[borrow]
        st = self.style
        if st.context:
            ctx, ctx_line = self._context, self._context_line
            near = _chained(borrow, np.where(src >= 0, src, ctx_line - first))
            inside = (src >= 0) & (src > last_reset[borrow]) & near
            carried = (src < 0) & (last_reset[borrow] < 0) & (ctx is not None) & near
        else:
            inside = carried = np.zeros(len(borrow), dtype=bool)
        taken = inside | carried
        if st.needs_counter:
            keep = borrow[taken]
        else:
            keep = borrow
        is_rec = oc == OWN
        is_rec[keep] = True
        rec = np.flatnonzero(is_rec)
        rows = np.full(n, -1, dtype=np.int64)
        if inside.any():  # the counters of each line lent, read per plan
            sources, which = np.unique(src[inside], return_inverse=True)
            rows[borrow[inside]] = self._borrow(line_counters(lines, pid, sources, plans)) + which
        if carried.any() and self._context is not None:  # carried needs a context
            rows[borrow[carried]] = self._borrow(self._counters(self._context))
        if not st.needs_counter and not taken.all():
            rows[borrow[~taken]] = self._no_counters()
        r = rec.tolist()
        self._r_outer.extend(self._outer_epochs(lines, pid, oc)[rec].tolist())
        self._r_num.extend((rec + first).tolist())
        self._r_raw.extend([lines[i] for i in r])
        self._r_pid.extend([pids[i] for i in r])
        self._r_ctx.extend(rows[rec].tolist())
        self._r_run.extend([self._run] * len(r))
        self._r_seg.extend([self._segment] * len(r))
        if sets.any():
            self._leading = None  # the first counter line came with nothing held before it
        # the context the next block starts with
        ls, lr = int(last_set[-1]) if n else -1, int(last_reset[-1]) if n else -1
        if ls > lr:
            self._context, self._context_line = (lines[ls], pids[ls]), first + ls
        elif lr >= 0:
            self._context = None
        if self._context is not None and taken.any():  # the record's last line so far
            self._context_line = max(self._context_line, first + int(borrow[taken][-1]))
        self.out.lines += n
        return True

    def _one_by_one(self, lines: list[str], shapes: list[str]) -> None:
        st, out, plans, known = self.style, self.out, self._plans, self._shapes
        add_num, add_raw, add_pid = self._r_num.append, self._r_raw.append, self._r_pid.append
        add_ctx, add_run, add_seg = self._r_ctx.append, self._r_run.append, self._r_seg.append
        use_context, needs_counter = st.context, st.needs_counter
        ctx, ctx_line, run, seg = self._context, self._context_line, self._run, self._segment
        add_outer = self._r_outer.append
        lent, lent_row = None, -1  # the last context lent, and its row in `_borrowed`
        number = out.lines
        for raw, shape in zip(lines, shapes, strict=True):
            number += 1
            pid = known.get(shape)
            if pid is None:
                pid = self._plan_of(shape, raw)
            if pid < 0:  # read with the patterns
                self._context, self._context_line = ctx, ctx_line
                self._run, self._segment = run, seg
                ends = ends_context(strip_prefix(raw)[0])  # not counting a rank tag
                self._opened = self._passed_over = False
                read = self.line(raw, number)
                if ends and not (read or self._opened or self._passed_over):
                    self._context = None
                ctx, ctx_line = self._context, self._context_line
                run, seg = self._run, self._segment
                continue
            plan = plans[pid]
            outcome = plan.outcome
            if self._leading is not None and outcome in (OWN, COUNTERS):
                self._release_leading(raw)
            if outcome == OWN:
                ctx, ctx_line = (raw, pid), number
                ctr = -1
                if st.epoch_lines_lend and _epoch_only(plan):
                    self._outer = self._counters(ctx)[0]
            elif outcome == BORROW:
                if use_context and ctx is not None and number - ctx_line <= CONTEXT_SPAN:
                    if ctx is not lent:
                        lent, lent_row = ctx, self._borrow(self._counters(ctx))
                    ctr = lent_row
                    ctx_line = number
                elif needs_counter:
                    if self._leading is not None and ctx is None:
                        self._hold((number, raw, pid, run, seg))
                    if plan.ends_context:
                        ctx = None
                    continue
                else:
                    ctr = self._no_counters()
            else:
                if outcome == COUNTERS:
                    ctx, ctx_line = (raw, pid), number
                    epoch = self._counters(ctx)[0]
                    self._outer = epoch if epoch >= 0 else self._outer
                elif outcome == TRIAL:
                    span = plan.name
                    header = raw[span[0] : span[1]] if span else None
                    out.runs.append(trial_name(header, len(out.runs)))
                    run, seg, ctx = len(out.runs) - 1, 0, None
                    self._outer = -1
                elif outcome == RESTART:
                    if self._r_num or out.records:
                        seg += 1
                        out.restarts += 1
                    ctx = None
                    self._outer = -1
                if plan.ends_context:
                    ctx = None
                continue
            add_num(number)
            add_raw(raw)
            add_pid(pid)
            add_ctx(ctr)
            add_outer(self._outer)
            add_run(run)
            add_seg(seg)
        out.lines = number
        self._context, self._context_line, self._run, self._segment = ctx, ctx_line, run, seg

    def _outer_epochs(self, lines: list[str], pid: np.ndarray, oc: np.ndarray) -> np.ndarray:
        """Per line of a block: the epoch the last header line (a counter line with no
        metrics) printed up to it, from the one before the block on; the state moves on."""
        out = np.full(len(lines), -1, dtype=np.int64)
        is_head = oc == COUNTERS
        if self.style.epoch_lines_lend:
            is_head |= (oc == OWN) & self._epoch_only[pid]
        heads = np.flatnonzero(is_head)
        if len(heads):
            epochs = line_counters(lines, pid, heads, self._plans)[:, 0]
            out[heads[epochs >= 0]] = epochs[epochs >= 0]
        at = np.maximum.accumulate(np.where(out >= 0, np.arange(len(out)), -1))
        filled = np.where(at >= 0, out[np.maximum(at, 0)], self._outer)
        if len(filled):
            self._outer = int(filled[-1])
        return filled

    def _plan_of(self, shape: str, raw: str) -> int:
        """The index of the plan for this shape, made from `raw` when new (-1: no plan)."""
        pid = self._shapes.get(shape)
        if pid is not None:
            return pid
        if len(shape) > MAX_SHAPE or len(self._shapes) >= self._max_plans:
            return -1
        plan = compile_line(self.style, raw)
        pid = -1 if plan is None else len(self._plans)
        if plan is not None:
            self._plans.append(plan)
        self._shapes[shape] = pid
        return pid

    def line(self, raw: str, number: int) -> bool:
        """Read one line with the style's patterns; True when it was a record."""
        st = self.style
        if not raw or not VALUE.search(raw):
            if raw and (st.restart or st.trial):
                self._headers(raw)
            return False
        text, wall = strip_prefix(raw)
        if st.restart or st.trial:
            if self._headers(text):
                return False
        if (st.skip is not None and st.skip.search(text)) or (
            st.signature is not None and not st.signature.search(text)
        ):
            self._passed_over = True  # as its plan reads it: it neither reads nor ends a record
            return False
        counters: dict[str, str] = {}
        rest = text
        for rx in st.counters:
            m = rx.search(rest)
            if m:
                counters.update({k: v for k, v in m.groupdict().items() if v is not None})
                a, b, fill = counter_cut(rest, m)
                rest = rest[:a] + fill + rest[b:]
        own = bool(counters)
        if own and self._leading is not None:
            self._release_leading(text)
        found = find_pairs(st, rest, own, text)
        counters = with_step_total(counters)
        ctr = tuple(counter(counters[k]) if k in counters else -1 for k in COUNTER_NAMES)
        if not found:
            if own:
                self._context, self._context_line = ctr, number
                self._opened = not counter_line_ends(st, text, rest)
                self._outer = ctr[0] if ctr[0] >= 0 else self._outer
            return False
        if words_between(rest, found) > most_words(st, own):
            return False
        if own:
            self._context, self._context_line = ctr, number
            if st.epoch_lines_lend and ctr[0] >= 0 and ctr[1] < 0 and ctr[2] < 0:
                self._outer = ctr[0]
        elif (
            st.context and self._context is not None and number - self._context_line <= CONTEXT_SPAN
        ):
            ctr = self._counters(self._context)
            self._context_line = number
        elif st.needs_counter and (self._leading is None or self._context is not None):
            return False
        kind, prefix_of = classify(st, text, rest[: found[0][0]])
        repeats = line_prefixes(rest, found)
        pairs = [((r or prefix_of(p[2])) + p[2], p[3]) for p, r in zip(found, repeats, strict=True)]
        if not own and self._leading is not None and self._context is None:
            self._hold((number, None, kind, wall, pairs, self._run, self._segment))
            return False
        self._explicit[len(self._r_num)] = (ctr, kind, wall, pairs)
        self._r_outer.append(self._outer)
        self._r_num.append(number)
        self._r_raw.append(None)
        self._r_pid.append(-1)
        self._r_ctx.append(-1)
        self._r_run.append(self._run)
        self._r_seg.append(self._segment)
        return True

    def _holds(self, oc: np.ndarray) -> bool:
        """A block (plan outcomes) with a metrics-only line before its first counter line:
        while no counter line was seen, such a line is held (`_leading`)."""
        borrow = np.flatnonzero(oc == BORROW)
        sets = np.flatnonzero((oc == OWN) | (oc == COUNTERS))
        return bool(len(borrow)) and (not len(sets) or borrow[0] < sets[0])

    def _hold(self, entry: tuple[Any, ...]) -> None:
        """Hold a metrics-only line above the first counter line; past `_MAX_LEADING` of them,
        hold none (and drop those held): no header is coming to place them."""
        if self._leading is None:
            return
        if len(self._leading) >= _MAX_LEADING:
            self._leading = None
            return
        self._leading.append(entry)

    def _release_leading(self, header: str) -> None:
        """The log's first counter line: when it is an epoch header (`Style.leading_epoch`,
        `Epoch 3/20`), the lines of metrics held before it become records of the epoch before
        (epoch 2); other lines (a callback's `Epoch 00001: ...`, a header of epoch 1, whose
        previous epoch does not exist) drop them. Nothing is held from here on."""
        held, self._leading = self._leading or [], None
        rx = self.style.leading_epoch
        m = rx.match(header.strip()) if rx is not None else None
        epoch = int(m.group(1)) - 1 if m else 0
        if not held or epoch < _FIRST_KERAS_EPOCH:
            return
        row = self._borrow((epoch, -1, -1, -1))
        for number, raw, *rest in held:
            if raw is None:  # read with the patterns: (kind, wall, pairs, run, segment)
                kind, wall, pairs, run, seg = rest
                self._explicit[len(self._r_num)] = ((epoch, -1, -1, -1), kind, wall, pairs)
                self._r_pid.append(-1)
                self._r_ctx.append(-1)
            else:  # (plan, run, segment)
                pid, run, seg = rest
                self._r_pid.append(pid)
                self._r_ctx.append(row)
            self._r_num.append(number)
            self._r_raw.append(raw)
            self._r_outer.append(epoch)
            self._r_run.append(run)
            self._r_seg.append(seg)

    def _headers(self, text: str) -> bool:
        st = self.style
        if st.trial is not None and (m := st.trial.search(text)):
            self.out.runs.append(trial_name(m.groupdict().get("trial"), len(self.out.runs)))
            self._run = len(self.out.runs) - 1
            self._segment = 0
            self._context = None
            return True
        if st.restart is not None and st.restart.search(text):
            if self._r_num or self.out.records:
                self._segment += 1
                self.out.restarts += 1
            self._context = None
            return True
        return False

    # ------------------------------------------------------------------ packing

    def _flush(self) -> None:
        explicit, plans = self._explicit, self._plans
        numbers, raws, ctxs = self._r_num, self._r_raw, self._r_ctx
        if not numbers:
            return
        n = len(numbers)
        pid = np.asarray(self._r_pid, dtype=np.int64)
        per_plan = np.asarray([len(p.metrics) for p in plans] + [0], dtype=np.int64)
        counts = per_plan[pid]  # -1 (read with the patterns) takes the trailing 0
        for i, payload in explicit.items():
            counts[i] = len(payload[3])
        offs = np.concatenate(([0], np.cumsum(counts)[:-1]))
        total = int(counts.sum())
        ctr = np.full((n, len(COUNTER_NAMES)), -1, dtype=np.int64)
        kind = np.zeros(n, dtype=np.int8)
        wall = np.full(n, np.nan)
        values = np.empty(total)
        named: list[tuple[np.ndarray, str | list[str]]] = []  # point positions, their names
        for p in np.unique(pid[pid >= 0]).tolist():
            idx = np.flatnonzero(pid == p)
            plan = plans[p]
            # a row with a plan (pid >= 0) always kept its line; None goes with pid -1
            group = Group(cast("list[str]", [raws[i] for i in idx.tolist()]))
            kind[idx] = plan.kind
            if plan.outcome == OWN:
                for j in range(len(COUNTER_NAMES)):
                    a, b = plan.counters[2 * j], plan.counters[2 * j + 1]
                    if a >= 0:
                        ctr[idx, j] = group.ints(a, b)
            if plan.stamp is not None:
                wall[idx] = group.walls(plan.stamp, self._days)
            for j, m in enumerate(plan.metrics):
                at = offs[idx] + j
                values[at] = group.floats(*m.value)
                named.append((at, m.name or [m.prefix + t for t in group.texts(*m.key)]))
        lent = np.asarray(ctxs, dtype=np.int64)
        if self._borrowed:
            table = np.concatenate(self._borrowed)
            ctr[lent >= 0] = table[lent[lent >= 0]]
        for i, (c3, k, w, pairs) in explicit.items():
            ctr[i], kind[i], wall[i] = c3, k, w
            at = offs[i] + np.arange(len(pairs))
            values[at] = floats([v for _, v in pairs])
            named.append((at, [name for name, _ in pairs]))
        # a batch or step printed under an epoch header belongs to that epoch
        outer = np.asarray(self._r_outer, dtype=np.int64)
        lend = (ctr[:, 0] < 0) & ((ctr[:, 1] >= 0) | (ctr[:, 2] >= 0)) & (outer >= 0)
        ctr[lend, 0] = outer[lend]
        keys = _register(self.out.keys, named, total)
        cols = {
            "points": counts,
            "epoch": ctr[:, 0],
            "step": ctr[:, 1],
            "batch": ctr[:, 2],
            "batches": ctr[:, 3],
            "kind": kind,
            "run": np.asarray(self._r_run, dtype=np.int32),
            "segment": np.asarray(self._r_seg, dtype=np.int64),
            "wall": wall,
        }
        for k, dtype in REC_FIELDS.items():
            packed = compact(np.ascontiguousarray(cols[k], dtype=dtype))
            self.out.rec.setdefault(k, []).append(packed)
        self.out.pts.setdefault("key", []).append(keys)
        self.out.pts.setdefault("val", []).append(values)
        self.out.records += n
        for col in (numbers, raws, self._r_pid, ctxs, self._r_run, self._r_seg, self._r_outer):
            col.clear()
        explicit.clear()
        self._r_chars = 0
        self._borrowed.clear()
        self._borrowed_rows = 0
        self._none_row = -1

    def finish(self) -> Parsed:
        self._flush()
        return self.out

    def _borrow(self, rows: np.ndarray | tuple[int, ...]) -> int:
        """Keep counters lent to records until they are packed; the row of the first."""
        at = self._borrowed_rows
        block = np.asarray(rows, dtype=np.int64).reshape(-1, len(COUNTER_NAMES))
        self._borrowed.append(block)
        self._borrowed_rows += len(block)
        return at

    def _no_counters(self) -> int:
        if self._none_row < 0:
            self._none_row = self._borrow(NO_COUNTERS)
        return self._none_row

    def _counters(self, ctx: tuple[Any, ...]) -> tuple[int, ...]:
        """The counters (COUNTER_NAMES) of a context: read from its line, or as kept."""
        if len(ctx) == len(COUNTER_NAMES):
            return ctx
        raw, pid = ctx
        return _line_counters(raw, self._plans[pid].counters)


def _chained(borrow: np.ndarray, src: np.ndarray) -> np.ndarray:
    """Per metrics-only line (`borrow`, ascending) lending the counters of line `src` (the
    same for a record's lines, ascending): whether it and every earlier line of its record
    came within CONTEXT_SPAN lines of the line before it (the counter line for the first)."""
    if not len(borrow):
        return np.zeros(0, dtype=bool)
    same = np.r_[False, src[1:] == src[:-1]]
    prev = np.where(same, np.r_[0, borrow[:-1]], src)
    pos = np.arange(len(borrow))
    last_gap = np.maximum.accumulate(np.where(borrow - prev > CONTEXT_SPAN, pos, -1))
    start = np.maximum.accumulate(np.where(same, 0, pos))
    return last_gap < start


def _line_counters(raw: str, c: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(counter(raw[c[k] : c[k + 1]]) if c[k] >= 0 else -1 for k in range(0, len(c), 2))


def _register(
    keys: dict[str, int], named: list[tuple[np.ndarray, str | list[str]]], total: int
) -> np.ndarray:
    """Each point's metric code; new names get codes in the order they were first printed."""
    first: dict[str, int] = {}
    for at, names in named:
        if isinstance(names, str):
            if len(at):
                first[names] = min(first.get(names, total), int(at[0]))
        else:
            for q, name in zip(at.tolist(), names, strict=True):
                if q < first.get(name, total):
                    first[name] = q
    for name in sorted(first, key=first.__getitem__):
        if name not in keys:
            keys[name] = len(keys)
    codes = np.empty(total, dtype=np.int32)
    for at, names in named:
        if isinstance(names, str):
            codes[at] = keys[names]
        else:
            codes[at] = [keys[name] for name in names]
    return codes
