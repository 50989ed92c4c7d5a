"""DeepXDE's loss history (`loss.dat`): what `dde.saveplot(losshistory, train_state,
issave=True)` and `dde.utils.save_loss_history` write for a physics-informed network, a NumPy text
table under the header `# step, loss_train, loss_test, metrics_test`.

A row holds the step, then each loss term on the training points (the PDE's residual, each
boundary and initial condition: k terms), the same k terms on the test points, and the test
metrics (m of them, such as the L2 relative error). The header names four columns whatever k and
m are; a row's 1 + 2k + m numbers are split with m the parity of the numbers after the step (0 or
1: `metrics=["l2 relative error"]` is the usual one), with a warning that says so. DeepXDE's loss
is the sum of its terms (each already weighted), so `loss_train` is the sum of the training terms
(the training loss), `loss_test` the sum of the test terms (the validation loss: the test points
are collocation points the optimiser never sees), and with more than one term each term is kept
too (`loss_train/term1`, ..., role `other`). The metrics are `metrics_test` (`metrics_test/1`, ...
with several), role `other`: DeepXDE writes no name for them. A step printed again (the L-BFGS
phase after Adam starts at Adam's last step) is one more point of the same run.

The console table `model.train` prints while it trains, as pasted into an issue, is read the same
way: `Step  Train loss  Test loss  Test metric` over rows `1000  [2.92e+02, 4.68e+01]  [3.00e+02,
3.39e+01]  []` (each list the terms, so their number is known), among other lines (`Compiling
model...`, the `Best model at step` summary), with or without its header. Older releases kept
only the PDE residual on the test points and printed the other test terms as 0 at every row: the
sum of the test terms then measures less than the training loss does, so it is kept with role
`other`, not as the validation loss (a gap between them would read as a train/test mismatch).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

import numpy as np
from lossforensics.classifiers.errors import EmptyInputError
from lossforensics.ingest._builder import FrameBuilder, Warnings
from lossforensics.ingest._source import (
    apply_run_name,
    default_run_name,
    first_line,
    head_text,
    require_nonempty,
)
from lossforensics.ingest.base import IngestResult

FORMAT = "deepxde"
_HEADER = re.compile(r"#\s*step,\s*loss_train,\s*loss_test,\s*metrics_test\s*$")
_ROLES = {"loss_train": "train_loss", "loss_test": "val_loss"}


# the console table: its header, and a row of the step and three bracketed lists
_CONSOLE_HEADER = re.compile(r"^\s*Step\s+Train loss\s+Test loss\s+Test metric\s*$", re.M)
_LIST = r"\[([^\[\]]*)\]"
_CONSOLE_ROW = re.compile(rf"^\s*(\d+)\s+{_LIST}\s+{_LIST}\s+{_LIST}\s*$")
# a head without the table's header is DeepXDE's table when this many of its lines are rows
_HEADLESS_ROWS = 3


def sniff(path: Path) -> bool:
    """The first non-blank line is DeepXDE's header, or the head holds its console table (its
    header and a row under it, or `_HEADLESS_ROWS` rows)."""
    text = head_text(Path(path))
    if text is None:
        return False
    if _opens_with_header(text):
        return True
    rows = sum(1 for line in text.splitlines() if _CONSOLE_ROW.match(line))
    return rows >= 1 if _CONSOLE_HEADER.search(text) else rows >= _HEADLESS_ROWS


def _opens_with_header(text: str) -> bool:
    """The text's first non-blank line is `loss.dat`'s header."""
    return bool(_HEADER.match(first_line(text.lstrip()).strip()))


def _console_rows(path: Path, warns: Warnings) -> tuple[list[int], list[list[float]], int, int]:
    """The console table's rows (step, train terms, test terms, metrics) with their line
    numbers, the number of terms and of metrics; other lines passed over."""
    numbers, rows = [], []
    shape: tuple[int, int] | None = None
    with path.open("r", encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, start=1):
            m = _CONSOLE_ROW.match(line)
            if m is None:
                continue
            try:
                train, test, metrics = (
                    [float(c) for c in part.split(",") if c.strip()] for part in m.groups()[1:]
                )
            except ValueError:
                warns.add(
                    "a row whose lists are not all numbers: skipped", line=number, kind="bad row"
                )
                continue
            shape = shape or (len(train), len(metrics))
            if (len(train), len(test), len(metrics)) != (shape[0], shape[0], shape[1]):
                warns.add(
                    "a row of other lengths than the first: skipped", line=number, kind="bad row"
                )
                continue
            numbers.append(number)
            rows.append([float(m[1]), *train, *test, *metrics])
    terms, metrics_n = shape or (0, 0)
    return numbers, rows, terms, metrics_n


def _rows(path: Path, warns: Warnings) -> tuple[list[int], list[list[float]]]:
    """The rows of numbers, each with its line number; other lines skipped with a warning."""
    numbers, rows = [], []
    width = None
    with path.open("r", encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, start=1):
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            try:
                row = [float(cell) for cell in text.split()]
            except ValueError:
                warns.add("a row that is not all numbers: skipped", line=number, kind="bad row")
                continue
            width = width or len(row)
            if len(row) != width or len(row) < 3:
                warns.add(
                    f"a row of {len(row)} numbers where the first has {width}: skipped",
                    line=number,
                    kind="bad row",
                )
                continue
            numbers.append(number)
            rows.append(row)
    return numbers, rows


def _columns(width: int) -> tuple[int, int]:
    """The loss terms (k) and the test metrics (m) in a row of `width` numbers."""
    metrics = (width - 1) % 2
    return (width - 1 - metrics) // 2, metrics


def read(
    path: Path, *, run: str | None = None, roles: Mapping[str, str] | None = None
) -> IngestResult:
    """Read one `loss.dat` as one run."""
    path = Path(path)
    require_nonempty(path)
    warns = Warnings(str(path))
    head = head_text(path)
    console = head is not None and not _opens_with_header(head)
    if console:
        lines, rows, terms, metrics = _console_rows(path, warns)
    else:
        lines, rows = _rows(path, warns)
    if not rows:
        raise EmptyInputError("no rows of numbers under DeepXDE's header", file=str(path))
    table = np.asarray(rows, dtype=np.float64)
    if not console:
        terms, metrics = _columns(table.shape[1])
    steps = table[:, 0]
    if not np.all(np.isfinite(steps) & (steps == np.floor(steps))):
        raise EmptyInputError(
            "the first column holds no whole-number steps", file=str(path), line=lines[0]
        )
    if not console:
        warns.add(
            f"each row read as the step, {terms} training loss term(s), {terms} test loss term(s) "
            f"and {metrics} test metric(s): DeepXDE's header does not say how many of each"
        )
    train_terms, test_terms = table[:, 1 : 1 + terms], table[:, 1 + terms : 1 + 2 * terms]
    series: dict[str, np.ndarray] = {
        "loss_train": train_terms.sum(axis=1),
        "loss_test": test_terms.sum(axis=1),
    }
    if terms > 1:
        for i in range(terms):
            series[f"loss_train/term{i + 1}"] = train_terms[:, i]
            series[f"loss_test/term{i + 1}"] = test_terms[:, i]
    for j in range(metrics):
        name = "metrics_test" if metrics == 1 else f"metrics_test/{j + 1}"
        series[name] = table[:, 1 + 2 * terms + j]
    builder = FrameBuilder()
    run_code = builder.runs.code(default_run_name(path))
    step_ints = steps.astype(np.int64)
    for name, values in series.items():
        code = np.full(len(step_ints), builder.metrics.code(name), dtype=np.int32)
        builder.add(run_code, code, step_ints, values)
    defaults = {name: _ROLES.get(name, "other") for name in series}
    unmeasured = np.all(test_terms == 0, axis=0) & np.any(train_terms != 0, axis=0)
    if unmeasured.any():
        defaults["loss_test"] = "other"
        warns.add(
            f"{int(unmeasured.sum())} test loss term(s) printed 0 at every row (not measured on "
            "the test points): the test loss is kept as a metric, not as the validation loss"
        )
    frame = builder.build(roles, default_roles=defaults, warns=warns)
    return IngestResult(
        apply_run_name(frame, run), warns.finish(), format=FORMAT, files=[str(path)]
    )
