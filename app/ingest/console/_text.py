"""Console text as lines, streamed: bytes in blocks, decoded as UTF-8 (bad bytes replaced), ANSI
escape codes removed, Windows line ends normalised, and each carriage-return-updated line (a
tqdm, Lightning or Keras progress bar) reduced to its final state: the last redraw, found with
`rfind`, unless a percentage on the line may drop (found for a whole block at once on its bytes),
when the line is read redraw by redraw. A Python warning that stderr wrote into the middle of a
printed line (`iter 10 || Loss: 10.47 || /x/aug.py:238: UserWarning: ...`: stdout had not ended
its line yet) goes to a line of its own, so its prose does not hide the metrics before it. A
printed dict written over a tqdm bar (`tqdm.write`: the HF Trainer's logs) keeps the bar's last
state before it on its line (`  12%|#2  | 2/16 [00:02<00:14] {'loss': 0.69, ...}`). A heading
that names a held-out split on a line of its own (`Test Error:`, PyTorch's quickstart;
`Validating...`) is the split of the metrics line right under it, and of each line of an
indented block under it (`[test]` is put before such a line, the heading's line left blank),
so its accuracy and loss are not read as training ones. Full-width punctuation (`loss：0.52，
acc：0.9`) is read as the ASCII mark it stands for. A
logger's key-value box (Stable-Baselines3's, one record drawn as a table between dashed rules)
is one line of `section/name=value` pairs between bars, on its closing rule's line."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import BinaryIO

import numpy as np

BLOCK = 1 << 20
ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")
# the `warnings` module's `path.py:LINE: CategoryWarning: message`, after text on the same line
_MIDLINE_WARNING = re.compile(
    r"^(?P<out>[^\n]*?\S)[ \t]+(?P<warn>(?:[A-Za-z]:)?[^\s:]+\.py:\d+: [A-Z]\w*Warning: )", re.M
)
# a line of at most three words, no digit, one of them a held-out split's (`Test Error:`,
# `Validating...`, `=== Validation ===`, DDSP-SVC's ` --- <validation> --- `), then, past at
# most one blank line, a line with a number (matched from the newline before it: a pattern that
# opens with a literal is found by a fast scan, where one anchored at `^` is tried at every
# character; possessive, so a line of metrics that opens with a split word fails at once)
_SPLIT_HEADING = re.compile(
    r"\n[ \t=#*><\[(-]*"
    r"(?P<word>(?i:test(?:ing)?|valid(?:ation|ating)?|val|eval(?:uation|uating)?))\b"
    r"(?:[ \t]+[A-Za-z]+){0,2}+[ \t]*+(?::|\.{1,3})?+[ \t=#*>\])-]*+\n(?P<gap>[ \t]*\n)?"
    r"(?=[^\n]*\d)"
)


# a logger's key-value box (Stable-Baselines3's and OpenAI baselines' `HumanOutputFormat`, the
# default at verbose=1): one record drawn as a table between dashed rules, a row a value
# (`|    loss             | 0.000102 |`), a row with no value opening a section whose rows are
# indented beneath it (`| train/              |          |`)
_BOX = re.compile(r"^-{10,}[ \t]*\n((?:\|[^\n]*\|[ \t]*\n)+)-{10,}[ \t]*$", re.M)
_BOX_ROW = re.compile(r"\|(?P<indent>\s*)(?P<name>[^|]*?)\s*\|\s*(?P<value>[^|]*?)\s*\|\s*")


def _box_record(m: re.Match[str]) -> str:
    """A box as one line of `section/name=value` pairs between bars (`| train/loss=0.5
    time/total_timesteps=2048 |`), on its closing rule's line (the lines above it left blank,
    so every line keeps its number); the box unchanged when a row is not `| name | value |`."""
    section, pairs = "", []
    rows = m[1].splitlines()
    for row in rows:
        r = _BOX_ROW.fullmatch(row)
        if r is None:
            return m[0]
        name, value = r["name"], r["value"]
        if name.endswith("/") and not value:
            section = name
            continue
        if len(r["indent"]) <= 1:  # a row flush with the rule belongs to no section
            section = ""
        pairs.append(f"{section}{name}={value}")
    return "\n" * (len(rows) + 1) + "| " + " ".join(pairs) + " |"


def _joined_boxes(text: str) -> str:
    """`text` with each key-value box (`_BOX`) read as one line."""
    # a rule line, then a row: the bar alone first (a memchr), then the rule's end (a longer
    # needle is found faster: `_BOX` needs ten dashes at least)
    if "|" not in text or "----------\n|" not in text:
        return text
    return _BOX.sub(_box_record, text)


# early stopping's report of the best round, printed once more under its message (XGBoost's
# `Stopping. Best iteration:`, LightGBM's `Early stopping, best iteration is:`): with a logging
# period above 1 that round was never printed before, so read as a record it is a step back, a
# second session. It is marked (`best [1393] ..`) so no round-counting style reads it.
_BEST_ROUND = re.compile(r"(?i)(best iteration(?: is)?:[ \t]*\n)(?=[ \t]*\[\d+\])")


def _best_rounds(text: str) -> str:
    """`text` with each best round that early stopping prints again marked (`_BEST_ROUND`)."""
    # the rounds are tab-separated: a memchr for the tab first, then the message
    if "\t" not in text or "est iteration" not in text:
        return text
    return _BEST_ROUND.sub(r"\1best ", text)


# a count out of a total after a key, with its percentage rounded to a whole number (PyTorch's
# MNIST example: `Accuracy: 9860/10000 (99%)`): the count's exact share is the value
_COUNT_OF_TOTAL = re.compile(r"(?<=:)(\s*)(\d+)\s*/\s*(\d+)\s*\(\s*(\d+(?:\.\d+)?)\s*%\s*\)")
# the printed percentage agrees with the count's share to within its rounding
_ROUNDING = 1.0
_PERCENT_OF = 100.0


def _exact_share(m: re.Match[str]) -> str:
    """One `_COUNT_OF_TOTAL` match as the count's share, or as printed when it is none."""
    count, total, printed = int(m[2]), int(m[3]), float(m[4])
    if not 0 < total or count > total:
        return m[0]
    share = _PERCENT_OF * count / total
    return f"{m[1]}{share:.6g}%" if abs(share - printed) <= _ROUNDING else m[0]


def _exact_shares(text: str) -> str:
    """`text` with each count of a total and its rounded percentage (`9860/10000 (99%)`) read
    as the count's exact share (`98.6%`): rounded to whole percents, a held-out accuracy climbing
    from 98.6 to 99.4 reads flat, as predictions that never change."""
    if "(" not in text or "%)" not in text:  # one character first: memchr is near free
        return text
    return _COUNT_OF_TOTAL.sub(_exact_share, text)


def _split_heading(m: re.Match[str]) -> str:
    word = m["word"].lower()
    split = "test" if word.startswith("test") else "val"
    return f"\n\n{m['gap'] or ''}[{split}] "


# the lines under a split heading indented as the first one is (`Val results:` over `    Loss :
# 0.68`, `    Accuracy : 0.59`): the heading's block, each line of it under the split
_HEADED_BLOCK = re.compile(
    r"^\[(?P<split>val|test)\] (?P<indent>[ \t]+)[^\n]*\n"
    r"(?P<rest>(?:(?P=indent)[^\n]*\d[^\n]*\n)+)",
    re.M,
)


def _headed_block(m: re.Match[str]) -> str:
    tag = f"[{m['split']}] "
    rest = "".join(tag + line for line in m["rest"].splitlines(keepends=True))
    return m[0][: len(m[0]) - len(m["rest"])] + rest


def _split_headings(text: str) -> str:
    """`text` with each split heading moved onto the line under it (`_SPLIT_HEADING`), and onto
    each line of an indented block under it (`_HEADED_BLOCK`)."""
    text, found = _SPLIT_HEADING.subn(_split_heading, "\n" + text)
    text = text[1:]
    return _HEADED_BLOCK.sub(_headed_block, text) if found else text


# full-width punctuation as Chinese and Japanese input methods type it (`loss：0.52，acc：0.9`),
# and typographic quotes an editor or a chat client puts in a pasted printed dict (`{‘loss’:
# 1.453, ‘learning_rate’: 2e-05}`): the ASCII mark each stands for, one character for one, so
# every line keeps its length
_FULL_WIDTH = str.maketrans("：，；（）［］＝｜‘’“”", ":,;()[]=|''\"\"")


# a log line that quotes some of its keys and not others, outside any printed dict (PaddleOCR
# 1.x: `epoch: 0, iter: 550, lr: 0.001000, 'loss': 14040.8, 'acc': 0.0, time: 1.228`): its
# quoted keys are keys like the others. A printed dict (`{'batch_size': 32, ...}`, a config)
# has braces and quotes every key: left as it is
_MIXED_QUOTES = re.compile(
    r"^(?=[^{}\n]*(?<![\w'\"])[A-Za-z_]\w*: [-+\d.])[^{}\n]*'[A-Za-z_][\w ]*': [^{}\n]*$",
    re.M,
)
_QUOTED_KEY = re.compile(r"'([A-Za-z_][\w ]*)'(?=: )")


def _bare_quoted_keys(text: str) -> str:
    """`text` with the quotes around the quoted keys of `_MIXED_QUOTES` lines turned into
    spaces (every line keeps its length)."""
    if "'" not in text or "': " not in text:  # one character first: memchr is near free
        return text
    return _MIXED_QUOTES.sub(lambda m: _QUOTED_KEY.sub(r" \1 ", m[0]), text)


# a Keras epoch header on the line of the bar after it, or after the bar before it, where the
# line breaks of a paste became runs of spaces (`Epoch 2/50      2/2 [====] - .. - loss: ..`,
# `.. - val_loss: 3795.57      Epoch 4/50`): the header goes back on a line of its own. Found
# from the header's literal (a pattern that opens with one is scanned for fast), then its sides
_EPOCH_HEADER = re.compile(r"Epoch \d+/\d+")
_PASTE_MAX = 1 << 18  # 256 KiB: far more than any log pasted into an issue or a notebook cell
_BAR_AFTER = re.compile(r"[ \t]{2,}(?=\d+/\d+ \[)")
_BAR_BEFORE = re.compile(r"\d[ \t]{2,}$")
_LINE_END = re.compile(r"[ \t]*(?:\n|$)")


def _split_joined_headers(text: str) -> str:
    """`text` with each Keras epoch header joined to a bar's line put on a line of its own, when
    it is a paste (under `_PASTE_MAX` characters): a file a program wrote keeps its line breaks,
    and searching a megabyte block for the joins costs a tenth of reading it."""
    if len(text) > _PASTE_MAX or "Epoch " not in text or " [" not in text:
        return text
    # a paste that lost its line breaks lost them on both sides of a header: one left after a
    # bar is there whenever one is left before one
    if "  Epoch " not in text and "\tEpoch " not in text:
        return text  # every header on a line of its own: the Keras log as printed
    out, last = [], 0
    for m in _EPOCH_HEADER.finditer(text):
        start, end = m.start(), m.end()
        line_start = text.rfind("\n", 0, start) + 1
        joined_after = _BAR_BEFORE.search(text, line_start, start) is not None and (
            _LINE_END.match(text, end) is not None
        )
        joined_before = start == line_start or text[line_start:start].isspace()
        bar = _BAR_AFTER.match(text, end) if joined_before else None
        if joined_after:
            out += [text[last:start].rstrip(" \t"), "\n"]
            last = start
        elif bar is not None:
            out += [text[last:end], "\n"]
            last = bar.end()
    return "".join(out) + text[last:] if out else text


def clean(text: str) -> str:
    """One block of text with ANSI codes gone and progress-bar updates reduced to the last."""
    if "\x1b" in text:
        text = ANSI.sub("", text)
    if not text.isascii() and ("：" in text or "，" in text or "‘" in text or "“" in text):
        text = text.translate(_FULL_WIDTH)
    text = _joined_boxes(_split_joined_headers(_bare_quoted_keys(text)))
    text = _split_headings(_exact_shares(_best_rounds(text)))
    if "Warning: " in text:
        text = _MIDLINE_WARNING.sub("\\g<out>\n\\g<warn>", text)
    if "\x08" in text:  # Keras 3 backspaces over its bar before redrawing it after a \r
        text = text.replace("\x08", "")
    if "\r" in text:
        text = text.replace("\r\n", "\n")
        if "\r" in text:
            lines = text.split("\n")
            resets = _maybe_reset(text)
            for i in [i for i, ln in enumerate(lines) if "\r" in ln]:
                line = lines[i]
                last = _last_drawn(line, len(line))
                if _STEP_BAR.search(last):
                    lines[i] = _step_bar_states(line)
                elif i in resets:
                    lines[i] = _states(line)
                else:
                    lines[i] = _over_bar(line, last)
            text = "\n".join(lines)
    return text


_PERCENT = re.compile(r"(\d+)%\|")
_BAR_POSITION = re.compile(r"\d+%\|[^|]*\|\s*\d+/\d+\s*\[")


# a bar over the run's steps with a loss in its postfix (diffusers' and accelerate scripts'
# `Steps:  20%|██  | 100/500 [17:26<1:08:56, 10.34s/it, lr=0.0005, step_loss=0.249]`, 3D
# Gaussian Splatting's `Training progress:   7%|█ | 7000/100000 [.., Loss=0.0159089]`): one bar
# for the whole run, so its last state is one point of the curve its redraws draw
# (STEP_BAR_HEAD: the description and the bar up to its position, which the progress-bar style
# reads as the step)
STEP_BAR_HEAD = (
    r"(?i)(?<![\w-])(?:training[ _]progress|(?:training[ _])?(?:steps?|iterations?|iters?))"
    r"\s*:?\s*\d+%\|[^|\n]*\|\s*"
)
_STEP_BAR = re.compile(STEP_BAR_HEAD + r"\d+/\d+\s*\[[^\]\n]*loss=")


def _step_bar_states(line: str) -> str:
    """Each state drawn of a bar over the run's steps (`_STEP_BAR`), each on a line of its own:
    a redraw shows the step it reached and that step's loss."""
    states = [part for part in line.split("\r") if _STEP_BAR.search(part)]
    return "\n".join(states) if states else _last_drawn(line, len(line))


def _states(line: str) -> str:
    """The last thing drawn on a line redrawn with carriage returns (a blank redraw, tqdm
    clearing its bar before a print, does not count). A bar whose percentage drops starts again
    on the same line (Lightning resets its bar for the next epoch): the last state before each
    reset is kept too, each on a line of its own."""
    states: list[str] = []
    last, pct = "", -1
    for part in line.split("\r"):
        if not part.strip():
            continue
        m = _PERCENT.search(part)
        now = int(m.group(1)) if m else -1
        if 0 <= now < pct and last:
            states.append(last)
        last, pct = part, now if m else pct
    return "\n".join([*states, _over_bar(line, last)])


def _over_bar(line: str, text: str) -> str:
    """A printed dict written over a tqdm bar (tqdm.write clears the bar with a blank redraw,
    then prints: how the HF Trainer prints its logs) with the bar's last state before it on its
    line: the bar's position is the step the dict was logged at."""
    if not text.startswith("{", len(text) - len(text.lstrip())):
        return text
    start = line.rfind(text)
    bar = _last_drawn(line, start - 1) if start > 0 else ""
    return f"{bar.rstrip()} {text.lstrip()}" if _BAR_POSITION.search(bar) else text


def _last_drawn(line: str, end: int) -> str:
    """The last redraw in line[:end] that is not blank ('' when there is none): what `_states`
    gives for a line whose bar is never reset."""
    while end >= 0:
        start = line.rfind("\r", 0, end)
        if line[start + 1 : end].strip():
            return line[start + 1 : end]
        end = start
    return ""


def _maybe_reset(text: str) -> set[int]:
    """The lines of `text` on which a printed percentage (`12%|`) may drop: the ones `_states`
    must read part by part. Read on the bytes at once; a percentage with more than three digits
    or a non-ASCII character before it counts as a possible drop."""
    data = np.frombuffer(text.encode("utf-8", "surrogatepass"), dtype=np.uint8)
    at = np.flatnonzero((data[:-1] == 37) & (data[1:] == 124))  # '%|'
    at = at[at > 0]
    if len(at) < 2:
        return set()
    padded = np.concatenate((np.zeros(4, dtype=np.uint8), data))
    before = [padded[at + 4 - k] for k in (1, 2, 3, 4)]  # the bytes before '%|', nearest first
    digit = [(b >= 48) & (b <= 57) for b in before]
    length = np.where(digit[0], np.where(digit[1], np.where(digit[2], 3, 2), 1), 0)
    value = np.zeros(len(at), dtype=np.int64)
    for k in range(3):
        value += np.where(length > k, before[k].astype(np.int64) - 48, 0) * 10**k
    after_run = np.choose(np.minimum(length, 3), before)  # the byte before the digits
    odd = (before[0] >= 128) | ((length == 3) & digit[3]) | ((length > 0) & (after_run >= 128))
    found = (length > 0) | odd
    at, value, odd = at[found], value[found], odd[found]
    line = np.searchsorted(np.flatnonzero(data == 10), at)
    same = line[1:] == line[:-1]
    drop = np.r_[False, same & (value[1:] < value[:-1])]
    return set(line[drop | odd].tolist())


def blocks(stream: BinaryIO, size: int = BLOCK) -> Iterator[bytes]:
    while chunk := stream.read(size):
        yield chunk


def iter_blocks(chunks: Iterable[bytes]) -> Iterator[str]:
    """Cleaned text, a block at a time, each cut at a newline (so a progress bar's updates
    never straddle two blocks); lines are the block split at "\\n". A last line with no newline
    after it is cleaned with the block before it: it may close what that block opened (a
    key-value box's closing rule)."""
    carry = b""
    pending: str | None = None
    for chunk in chunks:
        data = carry + chunk
        cut = data.rfind(b"\n")
        if cut < 0:
            carry = data
            if len(carry) > 16 * BLOCK:  # one endless line (a bar never ended): keep its tail
                carry = carry[-BLOCK:]
            continue
        carry = data[cut + 1 :]
        if pending is not None:
            yield clean(pending)
        pending = data[:cut].decode("utf-8", errors="replace")
    last = carry.decode("utf-8", errors="replace") if carry.strip() else ""
    if pending is not None:
        yield clean(f"{pending}\n{last}" if last else pending)
    elif last:
        yield clean(last)
