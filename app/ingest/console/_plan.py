"""What one style makes of one line, as positions: a *plan* that holds for every line of the
same shape.

Two lines whose texts differ only in their ASCII digits (`Epoch 3 - loss: 0.51` and
`Epoch 7 - loss: 0.49`) are read the same way by every style: the patterns match digits as a
class (`\\d`, never a literal digit), and turning each digit into `0` keeps every character
where it was. So a line is read once with the full patterns, the outcome is kept as character
spans (the counters, each metric's key and value, the timestamp), and every later line with the
same *skeleton* (its digits turned into `0`) is read by slicing those spans: no pattern runs on
it. A reading that is not a set of spans of the line gets no plan (None): such a line is read
with the full patterns each time (`Parser.line`, the reference the plans are tested against).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple, TypeVar

from lossforensics.ingest.console._line_split import held_out_prefixes
from lossforensics.ingest.console._prefix import stamp_match, strip_prefix
from lossforensics.ingest.console._style import NUM, Style

DIGITS = bytes.maketrans(b"0123456789", b"0000000000")
_DIGITS_STR = str.maketrans("0123456789", "0000000000")
MAX_SHAPE = 2_000  # longer lines are read with the full patterns each time
MAX_PLANS = 20_000  # shapes kept per read; past this, new shapes are read in full

# what a line is
NOTHING, TRIAL, RESTART, COUNTERS, OWN, BORROW = range(6)
WORD = re.compile(r"[A-Za-z]{2,}")
CONTEXT_MAX_WORDS = 3  # prose allowed on a metrics-only line that borrows the last counters
# a time per unit of work (`358ms/epoch`, `3ms/step`, `120us/sample`): a measurement, no words
_TIME_PER = re.compile(r"\d+(?:\.\d+)?\s?(?:s|ms|us|µs)/(?:epoch|step|sample)\b")
DIGIT = re.compile(r"\d")
# a line holds a value when it holds a digit, or a NaN or an infinity printed as one
# (`Validation loss: nan`: a run gone non-finite prints no digit at all)
VALUE = re.compile(r"\d|(?<![A-Za-z])(?i:nan|inf)(?![A-Za-z])")
_ASCII_DIGIT = re.compile(r"[0-9]")
_KEY_SUFFIX = re.compile(r"\s+(?:is|was|=)$")
_LETTER = re.compile(r"[A-Za-z]")
# a key opens with no linking word: the words up to it are prose (`Saving model at Epoch 3 with
# Validation Accuracy: 0.87` reads `Validation Accuracy`, the metric the epoch line prints too)
_LINKED_KEY = re.compile(r"^(?:with|and|at|for|of|on|in|to|from|by|after|when|while)\s+", re.I)
# a rate's unit opening a key (`step=111100, 21.7206 examples/sec lr=0.000000`, tf-pose's): the
# unit of the number before it, not a word of the key
_RATE_UNIT = re.compile(r"^[A-Za-z]+/(?:sec|s|step|it|iter|batch)\s+", re.I)
_SPLIT_WORD = re.compile(r"\b(val|valid|validation|eval|evaluation|test|dev)\b", re.I)
_HAS_SPLIT = re.compile(
    r"(?:^|[^a-z])(?:val|valid|validation|eval|evaluation|test|dev|train|training|predict)"
    r"(?:[^a-z]|$)|^(?:Val|Train|Test|Eval|Valid)[A-Z_]",
    re.I,
)
# a split word anywhere in a key or between keys (`Val Loss`, `val_loss`, `ValLoss`, `| test:`)
_REPEAT_SPLIT = re.compile(
    r"(?<![A-Za-z])([Vv]al(?:id(?:ation)?)?|VAL|[Ee]val(?:uation)?|EVAL|[Tt]est|TEST|[Dd]ev|DEV)"
    r"(?![a-z])"
)
TRAIN, EVAL, SUMMARY = 0, 1, 2
# the counters a record keeps: the epoch, the step, the batch, and the batches of an epoch when
# printed with the batch (`[ 10/196]`: the epoch's length)
COUNTER_NAMES = ("epoch", "step", "batch", "batches")
_T = TypeVar("_T")


def with_step_total(counters: dict[str, _T]) -> dict[str, _T]:
    """The counters of a line, a step's printed total (`Epoch [2/5], Step [10/62]`) kept as the
    epoch's length where the line prints no batch counter: a step that turns out to count
    within its epoch is read as the batch, and its total is then the epoch's length (a step
    that counts on ignores it)."""
    if "steps" in counters and "batch" not in counters and "batches" not in counters:
        return {**counters, "batches": counters["steps"]}
    return counters


class Metric(NamedTuple):
    name: str | None  # the metric's name when its key holds no digit, else read from the span
    key: tuple[int, int]
    value: tuple[int, int]
    prefix: str  # put before a key read from the line


class Plan(NamedTuple):
    outcome: int
    ends_context: bool  # a message of the style (>= 3 words) ends a record spread over lines
    counters: tuple[int, ...] = ()  # start, end of each of COUNTER_NAMES (-1: none)
    metrics: tuple[Metric, ...] = ()
    kind: int = 0
    name: tuple[int, int] | None = None  # TRIAL: where its name is
    stamp: tuple[int, int, int, int, int, int] | None = None  # minute, seconds, fraction spans


def skeletons(text: str) -> list[str]:
    """Each line of `text` with its ASCII digits turned into 0 (every position unchanged)."""
    if text.isascii():  # str.translate is fast on ASCII only; else translate the bytes
        return text.translate(_DIGITS_STR).split("\n")
    data = text.encode("utf-8", "surrogatepass").translate(DIGITS)
    return data.decode("utf-8", "surrogatepass").split("\n")


# a counter inside a key (`Loss at step 100: 2.1`, `acc @ epoch 3 = 0.9`, `Cost after epoch 0:
# 1.97`, `Mean Loss in Epoch 0: 0.128`): `at` (or another linking word) before it, a separator
# after it
_KEY_AT = re.compile(r"\s+(?:at|@|after|in|of|for)\s*$", re.I)
_SEP_NEXT = re.compile(r"\s*[:=]")
# what a counter cut out of a line leaves: a break, so the words around it join no key
COUNTER_BREAK = " | "


def counter_cut(rest: str, m: re.Match[str]) -> tuple[int, int, str]:
    """The span of `rest` a counter's match takes out, and its replacement: `COUNTER_BREAK`;
    or nothing, `at` included, when the counter sits inside a key, so the key meets its
    separator (`Loss at step 100: 2.1` reads as `Loss: 2.1`)."""
    at = _KEY_AT.search(rest, 0, m.start())
    if at is not None and _SEP_NEXT.match(rest, m.end()):
        return at.start(), m.end(), ""
    return m.start(), m.end(), COUNTER_BREAK


# a key and a duration printed as its value (`Epoch Time: 0m 53s`, `time: 1h 2m 3s`)
_DURATION_PAIR = re.compile(
    r"[A-Za-z][\w .]{0,30}:\s*\d+(?:\.\d+)?\s*[hms]\b(?:\s*\d+(?:\.\d+)?\s*[ms]s?\b)*"
)
# a heading that announces an evaluation, in a few words and at most a counter
# (`Evaluate global model`, PFLlib's; `Validation Results - Epoch: 10`, TransReID's)
_EVAL_HEADING = re.compile(
    r"^\W*(?i:evaluat\w*|validat\w*|test(?:ing)?)\b(?:[ \t]+[A-Za-z]+){0,3}"
    r"(?:[ \t:-]+(?i:epoch|step|iter\w*|round)[ \t]*[:#=]?[ \t]*\d+(?:/\d+)?)?[ \t:.-]*$"
)


def ends_context(text: str) -> bool:
    """A message (prose of CONTEXT_MAX_WORDS words or more) ends a record spread over lines;
    a heading that ends with a colon (`Train class-wise accuracy:`) announces the lines after it,
    which still belong to the record (PointNet's `eval mean loss: ..` below it), as does one
    that announces an evaluation (`Evaluate global model`, `Validation Results - Epoch: 10`)."""
    return (
        len(WORD.findall(text)) >= CONTEXT_MAX_WORDS
        and not text.rstrip().endswith(":")
        and not _EVAL_HEADING.match(text)
    )


def compile_line(style: Style, raw: str) -> Plan | None:
    """The plan for `raw` under `style`, or None when its reading is not a set of spans."""
    ends = ends_context(raw)
    if not raw or not VALUE.search(raw):
        header = _header(style, raw, 0) if raw and (style.restart or style.trial) else None
        return header._replace(ends_context=ends) if header else Plan(NOTHING, ends)
    text, wall = strip_prefix(raw)
    off = len(raw) - len(text)
    ends = ends_context(text)  # a rank tag's `stdout` is no prose
    if style.restart or style.trial:
        header = _header(style, text, off)
        if header:
            return header._replace(ends_context=ends)
    if style.skip is not None and style.skip.search(text):
        return Plan(NOTHING, False)  # a line the style knows to pass over: the record goes on
    if style.signature is not None and not style.signature.search(text):
        # another program's line among the style's own (TensorFlow's library messages between
        # Keras' `Epoch 3/20` and its epoch line): it neither reads nor ends a record
        return Plan(NOTHING, False)
    rest = text
    pos = list(range(off, off + len(text)))  # where each character of `rest` is in `raw`
    counters: dict[str, tuple[int, int]] = {}
    for rx in style.counters:
        m = rx.search(rest)
        if m:
            for k, v in m.groupdict().items():
                if v is not None:
                    counters[k] = (pos[m.start(k)], pos[m.end(k) - 1] + 1)
            a, b, fill = counter_cut(rest, m)
            rest = rest[:a] + fill + rest[b:]
            pos = pos[:a] + [-1] * len(fill) + pos[b:]
    own = bool(counters)
    found = find_pairs(style, rest, own, text)
    spans = sum((with_step_total(counters).get(k, (-1, -1)) for k in COUNTER_NAMES), ())
    if not found:
        if not own:
            return Plan(NOTHING, ends)
        return Plan(COUNTERS, counter_line_ends(style, text, rest), spans)
    if words_between(rest, found) > most_words(style, own):
        return Plan(NOTHING, ends)
    kind, prefix_of = classify(style, text, rest[: found[0][0]])
    repeats = line_prefixes(rest, found)
    metrics = []
    for pair, again in zip(found, repeats, strict=True):
        key, val = pair[2], pair[3]
        printed = pair[4] >= 0  # the key is on the line (not a column of a keyless table)
        kspan = _span(pos, pair[4], pair[4] + len(key)) if printed else (0, 0)
        vspan = _span(pos, pair[5], pair[5] + len(val))
        if kspan is None or vspan is None or (printed and raw[kspan[0] : kspan[1]] != key):
            return None
        prefix = again or prefix_of(key)
        name = None if printed and _ASCII_DIGIT.search(key) else prefix + key
        metrics.append(Metric(name, kspan, vspan, prefix))
    stamp = _stamp_spans(raw) if wall == wall else None  # a NaN wall: no timestamp
    if wall == wall and stamp is None:
        return None
    return Plan(OWN if own else BORROW, ends, spans, tuple(metrics), kind, stamp=stamp)


def counter_line_ends(style: Style, text: str, rest: str) -> bool:
    """Whether a line of counters and no metrics ends the record (else it opens one for the
    lines after it). The words beside its counters are its prose, a time it took aside
    (`Epoch: 01 | Epoch Time: 0m 53s` heading the epoch's lines: no prose)."""
    return (
        ends_context(text)
        and ends_context(_DURATION_PAIR.sub(" ", rest))
        and not opens_record(style, text)
    )


def most_words(style: Style, own: bool) -> int:
    """The prose a line of metrics may hold: the style's allowance on a line with its own
    counter, or on one that needs none and bears the style's signature (a progress bar named
    `valid:`, its postfix's `metrics={'acc': ..}`: its words are the bar's); else a few words."""
    own_line = own or (not style.needs_counter and style.signature is not None)
    return style.max_words if own_line else CONTEXT_MAX_WORDS


def opens_record(style: Style, text: str) -> bool:
    """Whether a line of counters and no metrics opens a record for the lines after it, however
    many words it has (the style's `opens`)."""
    return style.opens is not None and style.opens.search(text) is not None


def _span(pos: list[int], a: int, b: int) -> tuple[int, int] | None:
    """Where rest[a:b] is in the line, when it is one piece of it."""
    if a < 0 or b <= a or b > len(pos):
        return None
    first, last = pos[a], pos[b - 1]
    if first < 0 or last - first != b - a - 1 or -1 in pos[a:b]:
        return None
    return first, last + 1


def _header(style: Style, text: str, off: int) -> Plan | None:
    if style.trial is not None and (m := style.trial.search(text)):
        name = None
        if m.groupdict().get("trial") is not None:
            name = (m.start("trial") + off, m.end("trial") + off)
        return Plan(TRIAL, False, name=name)
    if style.restart is not None and style.restart.search(text):
        return Plan(RESTART, False)
    return None


def _stamp_spans(raw: str) -> tuple[int, int, int, int, int, int] | None:
    found = stamp_match(raw)
    if found is None:
        return None
    m, at = found
    f = (m.start("f") + at, m.end("f") + at) if m["f"] else (0, 0)
    return (m.start("y") + at, m.end("mi") + at, m.start("s") + at, m.end("s") + at, *f)


# a line that is only a held-out split, a metric word and its value (`Eval Acc 0.9248`, DGL's
# examples; `Test Loss 0.52`): a `key value` pair with no counter of its own that borrows one,
# as a `key: value` line does; the closed lists of words keep prose out
_SPLIT_METRIC_LINE = re.compile(
    r"\s*(?i:eval|val|valid|validation|test|dev)\s+"
    r"(?i:acc|accuracy|loss|f1|auc|mae|mse|rmse|map|miou|dice|bleu|wer|cer)\s+"
    rf"(?:{NUM})\s*"
)


# a value in a row of a keyless table, between spaces, or before the colon of a bar drawn after
# the row (`Style.columns_on`)
_COLUMN_VALUE = re.compile(rf"(?<=\s)(?P<val>{NUM})(?=\s|:\s|$)")


def find_pairs(
    st: Style, rest: str, own: bool, text: str
) -> list[tuple[int, int, str, str, int, int]]:
    """The metrics on a line (`text`; `rest` with its counters cut out): (match start, match
    end, key, value, where the key starts (-1: a column of a keyless table), where the value
    starts). An evaluation line is read with the style's `eval_pairs` when it has them and they
    find a metric on it (else with its `pairs`, as a train line)."""
    found = []
    pairs = st.pairs
    if (
        st.eval_pairs is not None
        and st.eval is not None
        and st.eval.search(text)
        and st.eval_pairs.search(rest)
    ):
        pairs = st.eval_pairs
    if st.columns and (st.columns_on is None or st.columns_on.search(text)):
        # values only: the n-th is the n-th column (no key printed: key at -1)
        values = st.pairs if st.columns_on is None else _COLUMN_VALUE
        for m, key in zip(values.finditer(rest), st.columns, strict=False):
            found.append((m.start(), m.end(), key, m["val"], -1, m.start("val")))
        return found
    for m in pairs.finditer(rest):
        raw_key = m["key"]
        spaced = not m["sep"].strip() and " is " not in m["sep"]
        if spaced and m["sep"] and not (st.spaced and (own or _SPLIT_METRIC_LINE.fullmatch(rest))):
            continue
        key = _KEY_SUFFIX.sub("", raw_key.strip()).removesuffix(".item()")
        key_at = m.start("key") + len(raw_key) - len(raw_key.lstrip())
        start = m.start()
        if (cut := key.rfind(". ")) >= 0:  # `Training done. Best AUC`: the key is `Best AUC`
            start = key_at = key_at + cut + 2
            key = key[cut + 2 :]
        if (link := _LINKED_KEY.match(key)) and link.end() < len(key):
            start = key_at = key_at + link.end()
            key = key[link.end() :]
        if (unit := _RATE_UNIT.match(key)) and unit.end() < len(key):
            start = key_at = key_at + unit.end()
            key = key[unit.end() :]
        if key in st.ignore or key.lower() in st.ignore:
            continue
        found.append((start, m.end(), key, m["val"], key_at, m.start("val")))
    return found


# the count a loss was taken over, printed beside it (icefall's `over 2828.00 frames.`)
_OVER_COUNT = re.compile(r"\bover \d+(?:\.\d+)? (?:frames|utterances|utts|samples|tokens)\b\.?")


# a name and the time it measures, as a clock after a colon or in seconds (`Tot: 0:00:23`, `ETA:
# 0:00:00`, `Data 0.789s(0.789s)`, `Net 23.530s`: CenterNet's progress line), or a time or a
# memory glued to its key by a colon (`train_time:122ms step_avg:121.76ms mem:19152MiB`:
# modded-nanogpt's): a measurement, no words (a log level before a clock, `[INFO 23:29:07]`, is
# a stamp, not one)
_TIMED_PAIR = re.compile(
    r"\b[A-Za-z]\w{0,20}(?::\s*\d+:\d\d(?::\d\d)?|:?\s*\d+(?:\.\d+)?s(?:\(\d+(?:\.\d+)?s\))?"
    r"|:\d+(?:\.\d+)?(?:ms|us|µs|[KMGT]i?B))(?!\w)"
)


def words_between(rest: str, found: list[tuple[int, int, str, str, int, int]]) -> int:
    """The words of prose on a line outside its metrics; a time per epoch or step that the
    framework prints beside them (Keras' `358ms/epoch - 3ms/step`), or the count a loss was
    taken over (`over 2828.00 frames.`), is no prose."""
    gaps = [rest[: found[0][0]], rest[found[-1][1] :]]
    gaps += [rest[a[1] : b[0]] for a, b in zip(found, found[1:], strict=False)]
    return sum(
        len(WORD.findall(_TIMED_PAIR.sub(" ", _OVER_COUNT.sub(" ", _TIME_PER.sub(" ", g)))))
        for g in gaps
    )


def repeat_splits(rest: str, found: list[tuple[int, int, str, str, int, int]]) -> list[str]:
    """Per metric, the split a key printed twice on one line is under the second time
    (`Train Loss: 11.2 | Acc: 0.05 | Val Loss: 10.9 | Acc: 0.07`: the second `Acc` is the val
    one): the last split word (val, test, ...) written between the two, as `val/`; '' for the
    rest. Without one the repeat keeps its name."""
    out = [""] * len(found)
    last: dict[str, int] = {}  # key -> where its previous printing ends
    for i, pair in enumerate(found):
        key = pair[2]
        if key in last and not _HAS_SPLIT.search(key):
            words = _REPEAT_SPLIT.findall(rest, last[key], pair[0])
            if words:
                out[i] = f"{words[-1]}/"
        last[key] = pair[1]
    return out if any(out) else _repeated_group(rest, found, out)


def _repeated_group(
    rest: str, found: list[tuple[int, int, str, str, int, int]], out: list[str]
) -> list[str]:
    """`out` with a group of keys printed again in the same order, nothing but separators
    between the two (`epoch: 5 |loss 2.69 | hm_loss 1.85 | time 1.5 | loss 3.08 | hm_loss 1.92 |
    time 0.5 |`, CenterNet's log.txt: the training pass's averages, then the validation's under
    the same names), put under `val/`: a second pass over the same metrics in one record is
    the held-out one. A lone key printed twice keeps its name."""
    keys = [pair[2] for pair in found]
    k = 0  # the group's length: the keys before the first printed again
    while k < len(keys) and keys[k] not in keys[:k]:
        k += 1
    if k < 2 or keys[k : 2 * k] != keys[:k] or any(_HAS_SPLIT.search(key) for key in keys[:k]):
        return out
    if _LETTER.search(rest, found[k - 1][1], found[k][0]):
        return out
    return [*out[:k], *(["val/"] * k), *out[2 * k :]]


def line_prefixes(rest: str, found: list[tuple[int, int, str, str, int, int]]) -> list[str]:
    """Per metric, what its key is under though the key does not say it: a group of running
    totals (`_totals_groups`), the split of a key printed again after a split word
    (`repeat_splits`), of a score on a held-out split's line (`_line_split`); '' for the rest."""
    held_out = held_out_prefixes([pair[2] for pair in found])
    return [
        g or a or b
        for g, a, b in zip(
            _totals_groups(rest, found), repeat_splits(rest, found), held_out, strict=True
        )
    ]


# icefall's (k2's) metrics in named groups: `loss[loss=0.4561, over 2828.00 frames. ],
# tot_loss[loss=0.7076, over 22192.90 frames. ]`, the batch's losses and then their running
# totals over recent batches; read as one, the two joined one series, a batch beside its running
# mean at every step. The totals' keys are named under their group (`tot_loss/loss`).
_TOTALS_GROUP = re.compile(r"\b(tot_\w+)\[[^\[\]\n]*\]")


def _totals_groups(rest: str, found: list[tuple[int, int, str, str, int, int]]) -> list[str]:
    """Per metric, `<group>/` when it sits in a group of running totals (`_TOTALS_GROUP`)."""
    if "tot_" not in rest:
        return [""] * len(found)
    spans = [(m.start(), m.end(), m.group(1)) for m in _TOTALS_GROUP.finditer(rest)]
    return [next((f"{n}/" for a, b, n in spans if a <= pair[0] < b), "") for pair in found]


def classify(st: Style, text: str, head: str) -> tuple[int, Callable[[str], str]]:
    """A record's kind (train, eval, summary) and what goes before each of its keys."""
    kind, prefix = TRAIN, ""
    if st.eval is not None and (m := st.eval.search(text)):
        kind = EVAL
        word = m.groupdict().get("split")
        prefix = f"{word}/" if word else st.prefix_eval
    elif st.summary is not None and st.summary.search(text):
        kind, prefix = SUMMARY, "summary/"
    elif st.eval is None and (m := _SPLIT_WORD.search(head)):
        kind, prefix = EVAL, f"{m.group(1)}/"

    def prefix_of(key: str) -> str:
        return prefix if prefix and not _HAS_SPLIT.search(key) else ""

    return kind, prefix_of
