"""What a console style declares: regular expressions, no code.

A `Style` names the lines it reads and how: `counters` find the epoch / step / batch numbers
on a line (their span is cut out before the metrics are read), `pairs` reads the metrics
(`key: value`, `key=value`, `'key': value`, ...), `eval` marks a line as an evaluation line (its
metrics are kept apart from the training ones under `prefix_eval`), `summary` marks end-of-epoch
or end-of-run averages (kept under `summary/`, role other), `restart` and `trial` headers split a
file into segments and runs, `skip` drops a line outright, `opens` marks a counter line whose
counters the next lines take even though it reads as a message, `roles` are the style's role hints
for names the general inference cannot know (`Train-SmoothL1` is a loss), `note` says what
the style takes when a line prints two numbers for one metric, and `columns` names the values of
a table printed without keys, in order; `carried` and `last_in_epoch` drop a bar's values
that are a redraw, not a new measurement, and `repeated_round` a round printed again;
`leading_epoch` places the lines above a log's first epoch header, when its top was cut;
`rounded_steps` spreads the records of a step printed rounded (`1K`); `markers` lets the choice
of a style skip one whose lines a text cannot hold.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# A number as training scripts print it: 12, -0.5, .5, 1e-4, 1.0E+00, nan, inf, -Infinity;
# PaddlePaddle's loggers format values `{:x<6f}`, which pads a NaN to `nanxxx`, an inf to `infxxx`
NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?(?:[nN]a[nN]|[iI]nf(?:inity)?)(?:x{1,3})?"
# a number ends here: not '0s', not '0:10:00', not '3/20', not '1.2.3'; a colon after it ends it
# when no digit follows (`Accuracy=10.99: 100%|...`, a value before a tqdm bar), and so does a
# full stop that ends a sentence (`loss: 0.0197. The running time is 4073.9.`), as do dots that
# trail it (`Training Loss: 4.739..  Validation Loss: 3.941..`, Udacity's course prints); nor
# '2025-04-19', a date (`Time: 2025-04-19 10:22:03` is no value of 2025)
_END = r"(?![\w/]|\.(?!\.+(?:\s|$))\S|:\d|-\d)"
# a count out of a total printed before its percentage (`Accuracy: 9836/10000 (98%)`, PyTorch's
# MNIST example): the percentage is the value (the text reader has already written the count's
# exact share in its place where the two agree, `_text._exact_shares`)
_COUNT_OF = r"(?:\d+\s*/\s*\d+\s*\(\s*(?=[-+\d.]+\s*%\s*\)))?"
# a key of up to four words, each may carry a qualifier in brackets (`t2m RMSE(norm)`); `is` is
# not one of them (`Total loss is 0.5`: the separator). A
# class's number is a word of its key (`eval class 0 accuracy`: one class's metric, not the
# overall `accuracy` logged twice)
# (a key may open with an accented Latin, a Cyrillic, a Chinese, Japanese or Korean letter:
# `Pérdida`, `Потери`, `训练损失`, `テスト損失`, `검증 손실`)
_WORD_START = r"[A-Za-z_\u00c0-\u024f\u0400-\u04ff\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af]"
_WORD = rf"(?:(?i:class|label|category) \d+(?= [A-Za-z_]|\s*[:=])|{_WORD_START}[\w\-/.@]*)"
# a key may end in an aside in brackets that opens with a preposition (`Training loss (for 1
# batch) at step 200: 2.27`, the Keras guide's custom loop): part of the name as printed
_ASIDE = r"(?: \((?i:for|per|on|over|of|in|at|from)\b[^()\n]{1,24}\))?"
# A key starts a word: never inside one, nor on a number's unit (`per-step time 0.490s loss=0.2`
# is `loss`, not `s loss`)
# (nor is the `to` of a learning rate set by a message: `_SET_TO`)
_SET_TO_WORD = r"(?<=[Ll]earning [Rr]ate )to\b|(?<=\blr )to\b"
# a key may end in a tensor's `.item()`, as Python's `f"{loss.item()=}"` prints it
# (`train_loss.item()=2.295`): the name is the tensor's (`_plan` takes the call off)
_ITEM = r"(?:(?<=\.item)\(\))?"
_KEY = (
    rf"(?<![\w.]){_WORD}(?:\(\w+\))?{_ITEM}"
    rf"(?: (?!is\b|{_SET_TO_WORD}){_WORD}(?:\(\w+\))?){{0,3}}{_ASIDE}"
)

# A value printed as the object that holds it, read as the number inside: a one-element list or
# numpy array (`[0.6931]`, `[ 0.69]`), a tensor (`tensor(0.69, device='cuda:0', grad_fn=<..>)`,
# `tensor([0.69])`; TensorFlow's `tf.Tensor(0.35, shape=(), dtype=float32)`), a numpy scalar
# or array (`np.float64(0.69)`, `array([0.69], dtype=float32)`).
# Two or more elements (`[0.69 0.71]`) are not one value: no match; unless each is the first
# printed again (DeepSpeed's `lr=[5.79e-07, 5.79e-07]`, one learning rate a parameter group).
_OPEN = r"(?P<wrap>(?:tensor|tf\.Tensor|array|np\.float\d*|float\d*)\()?(?P<list>\[\s*)?"
_CLOSE = r"(?(list)(?:\s*,\s*(?P=val))*\s*\])(?(wrap)(?:,(?:[^()\n]|\(\))*)?\))"

# a value printed as the change that led to it (`Learning Rate Reduced: 0.001 -> 0.0001`): the
# new value is the one that holds from here on
_CHANGED_FROM = rf"(?:(?:{NUM})\s*(?:->|=>|\u2192)\s*)?"
# a value may be a percentage, but not a progress bar's (`Training: 100%|████| 183/183`: the
# bar's name and how far it got, no metric), or in decibels (`Average PSNR : 18.33dB`: KAIR's
# and the image-restoration trainers' PSNR)
_PERCENT = r"(?:%(?!\|)|dB|(?!%))"
# `key: value`, `key=value`, `key = "value"`, `key is value` (`key is: value`), `key value` (the
# last only when the line carries its own step: see Style.spaced)
# a learning rate set by a message (`Updating learning rate to 0.0001`, the Informer and
# Time-Series-Library trainers' after each epoch): `to` is its separator
_SET_TO = r"(?<=[Ll]earning [Rr]ate) to\s+|(?<=\blr) to\s+"
PAIRS = re.compile(
    rf"(?P<key>{_KEY})(?P<sep>{_SET_TO}|\s*[:=]\s*|\s+is\s*[:=]?\s*|\s+)['\"]?{_COUNT_OF}"
    rf"{_CHANGED_FROM}"
    rf"{_OPEN}(?P<val>{NUM}){_CLOSE}['\"]?\s*{_PERCENT}{_END}"
)
# a PyTorch meter: `Loss 0.52 (0.61)` / `loss: 0.52 (0.61)`: the value before the brackets
METER_PAIRS = re.compile(
    rf"(?P<key>{_KEY})(?P<sep>\s*[:=]?\s*){_OPEN}(?P<val>{NUM}){_CLOSE}"
    rf"(?:\s*\(\s*(?:{NUM})\s*\))?{_END}"
)
# a meter's running average: `Loss: 1.462 ( 1.867)` -> 1.867 (the latest when none is printed)
AVERAGE_METER_PAIRS = re.compile(
    rf"(?P<key>{_KEY})(?P<sep>\s*[:=]?\s*)(?:(?:{NUM})\s*\(\s*(?=(?:{NUM})\s*\)))?"
    rf"(?P<val>{NUM})(?:\s*\))?{_END}"
)
# `'loss': 0.51` / `"eval_loss": 0.3` / `'loss': '0.6932'` (transformers 5) in a printed dict
DICT_PAIRS = re.compile(
    rf"['\"](?P<key>[^'\"]{{1,200}})['\"]\s*:\s*(?P<sep>)['\"]?{_OPEN}(?P<val>{NUM}){_CLOSE}"
)

# counters most logs print: Epoch 3/20, epoch:3, Epoch [003/30], Epoch[3], iter: 19,
# iteration 100/ 5000, step 250, Batch [20], global_step=100; a counter may end in a colon
# before the metrics (`Epoch 3: loss=0.5`, `Step 100: loss 2.1`; not `0:10:00`, a time, nor
# `Epoch 3:  40%|`, a progress bar, which its own style reads). nanoGPT's `iter 100: loss 2.5`
# is read by the fallback too, but its own style still reads it (`_choose`); a full stop that
# ends a sentence ends a counter (`Step: 100. Epoch: 0/500. Iteration: 101/103. Cls loss: ..`,
# the EfficientDet trainer's), one before a digit does not (`Epoch 3.5`); nor is a number
# before a percent sign a counter (`Current iteration:  71%|███ | 1322/1875 [..]`: a share)
_COUNTER_END = r"(?![\w/%]|\.(?!\.+(?:\s|$))\S|:\d|:\s*\d+%)"
# ...and a counter word is no unit of a rate (`Samples/Epoch: 1000`, `ms/step 12`): a word after
# a slash is a denominator, not a counter
_COUNTER_START = r"(?<!/)\b"
# a counter word may say it is a number (`Epoch no. = 3`, `Epoch No: 3`, `Epoch number 3`)
_NUMBER_WORD = r"(?:\s*(?:no\.?|nr\.?|num(?:ber)?)(?=[\s:=#.]))?"
EPOCH = re.compile(
    # (Lasagne's examples: `Epoch 3 of 500 took 1.234s`)
    rf"{_COUNTER_START}epoch{_NUMBER_WORD}\s*[:=#]?\s*\[?\s*(?P<epoch>\d+)"
    rf"(?:(?:\s*/\s*|\s+of\s+)(?P<epochs>\d+))?\s*\]?{_COUNTER_END}",
    re.I,
)
# a Chinese script's epoch (`第3轮`, `第 3 个epoch`, `第3代`: the 3rd round, epoch, generation)
EPOCH_ZH = re.compile(r"第\s*(?P<epoch>\d+)\s*(?:轮|个\s*epoch|代)", re.I)
# ...and the word in other languages (`エポック 3/10`, `에폭 3`, `Эпоха 3`, `Época 3`, `Epoche 3`)
EPOCH_OTHER_LANGUAGES = re.compile(
    r"(?<!\w)(?:エポック|에폭|에포크|эпоха|епоха|época|epoche|époque|epoka)\s*[:：]?\s*(?P<epoch>\d+)"
    r"(?:\s*/\s*(?P<epochs>\d+))?",
    re.I,
)
# a federated run counts communication rounds (`Round 3`, `Round number: 3`, `[ROUND 3]`,
# `Global Training Round : 3`, `Communication round 3/50`): each is an epoch of the global model
ROUND = re.compile(
    rf"{_COUNTER_START}(?:(?:communication|global(?:\s+training)?)\s+)?round{_NUMBER_WORD}\s*[:=#]?\s*"
    rf"\[?\s*(?P<epoch>\d+)(?:\s*/\s*(?P<epochs>\d+))?\s*\]?{_COUNTER_END}",
    re.I,
)
# the step's number may be glued to its word by an underscore (`Train step_54720: loss : 2443.02`,
# pytorch-YOLOv4's)
STEP = re.compile(
    rf"{_COUNTER_START}(?:global_step|total_step|step|iterations|iteration|iters|iter|it|num_updates){_NUMBER_WORD}(?:_(?=\d))?\s*[:=#]?\s*\[?\s*(?P<step>\d+)"
    rf"(?:\s*/\s*(?P<steps>\d+))?\s*\]?{_COUNTER_END}",
    re.I,
)
BATCH = re.compile(
    rf"{_COUNTER_START}batch(?:_?(?:id|idx|index)\b)?{_NUMBER_WORD}\s*[:=#]?\s*\[?\s*(?P<batch>\d+)(?:\s*/\s*(?P<batches>\d+))?\s*\]?{_COUNTER_END}",
    re.I,
)
# `[1,  2000] loss: 2.203` at the head of a line (PyTorch's CIFAR-10 tutorial): epoch, batch
EPOCH_BATCH_PAIR = re.compile(r"^\s*\[\s*(?P<epoch>\d+)\s*,\s*(?P<batch>\d+)\s*\]")
# a line that opens with a bracketed number and a space (`[01] train_loss 2.86 | test_loss ..`,
# a script's f"[{epoch:02d}] ..."): the epoch. Read before the named counters, which take its
# place when the line prints one (`[0] epoch 3 ...`: a tag, the epoch is 3). A tab after it is
# a boosting round (`[20]\ttrain-rmse:..`), the xgboost style's
LEADING_INDEX = re.compile(r"^\s*\[\s*(?P<epoch>\d+)\s*\](?= )")
# a line that opens with a bare number before a bracketed group of named values (`13882 [D loss:
# 7.97 | D Accuracy: 50.0] [G loss: 1.2e-07]`, the Keras-GAN implementations' print): the step
LEADING_STEP_GROUP = re.compile(r"^\s*(?P<step>\d+)\s+(?=\[[A-Za-z][^\]]*:\s*[-+.\d])")
# a line that opens with a bracketed count of a total, `[100/300000] Train loss: ..`
# (deep-text-recognition-benchmark, EasyOCR): the step; two of them, `[0/5][50/1583]\tLoss_D: ..`
# (PyTorch's DCGAN example), are the epoch and the batch of the epoch's length
LEADING_PROGRESS = re.compile(
    r"^\s*\[\s*(?P<step>\d+)\s*/\s*(?P<steps>\d+)\s*\](?!\s*\[\s*\d+\s*/)(?=[\s:,|]|$)"
)
# the batch within its epoch before the word (`|   200/ 2983 batches | lr 5.00 | ...`, PyTorch's
# word_language_model example and the AWD-LSTM family built on it)
BATCHES_AFTER = re.compile(r"(?<![\w/.])(?P<batch>\d+)\s*/\s*(?P<batches>\d+)\s+batches\b")
# a line that opens with the epoch's number before the word (`1 epoch, LR 0.001000, LOSS 3.67, ACC
# 47.27%, EER 4.40%`: the ECAPA-TDNN, TalkNet and Light-ASD trainers' `score.txt`)
NUMBER_FIRST_EPOCH = re.compile(
    r"^\s*(?P<epoch>\d+)(?:st|nd|rd|th)?\s+epoch\b(?!\s*[:=#]?\s*\d)", re.I
)
# the epoch and its batch in brackets after the word (`Epoch: [1][0/391] Elapsed 0m 2s ...
# Loss: 2.89(2.89) Grad: 78659.05 LR: 0.00002`, the Kaggle training template many notebooks
# copy), or the epoch bare and the examples seen so far in brackets, maybe with their share
# (`Train Epoch: 1 [640/60000 (1%)]\tLoss: 0.29`, PyTorch's MNIST example; `Training Epoch: 4
# [20/59]\tLoss: 2.89\tLR: 0.01`, pytorch-cifar100's): the place in the epoch, so two batches
# that print the same values are two points, not a line and its echo
EPOCH_BRACKETED_BATCH = re.compile(
    r"\bepoch\s*:?\s*\[?\s*(?P<epoch>\d+)\s*\]?\s*\[\s*(?P<batch>\d+)\s*/\s*(?P<batches>\d+)"
    r"(?:\s*\(\s*\d+(?:\.\d+)?\s*%\s*\))?\s*\]",
    re.I,
)
# the epoch out of all in brackets, then the batch out of the epoch's in parentheses
# (`Epoch:[0/19](100/24681) loss:5.251 lr:0.0002 epoch_Time:98.0min:`, minimind's): the epoch
# and the batch of its printed length
EPOCH_OF_ALL_BATCH = re.compile(
    r"\bepoch\s*:?\s*\[\s*(?P<epoch>\d+)\s*/\s*(?P<epochs>\d+)\s*\]"
    r"\s*\(\s*(?P<batch>\d+)\s*/\s*(?P<batches>\d+)\s*\)",
    re.I,
)
# a phase, then its epoch and batch in brackets (`ctdet/coco_dla| train: [1][0/61]|Tot: 0:00:23
# |ETA: 0:00:00 |loss 253.66 |hm_loss 252.24 ...`, CenterNet's progress line; `val: [5][12/2110]`
# for its validation): the epoch and the batch of its printed length
PHASE_EPOCH_BATCH = re.compile(
    r"(?:(?<=(?i:train): )|(?<=(?i:val): )|(?<=(?i:test): ))"  # the phase stays: it names the split
    r"\[(?P<epoch>\d+)\]\[(?P<batch>\d+)/(?P<batches>\d+)\]"
)
# a line that opens with a bare step and a bar (`10 | loss 9.3750 | lr 3.000000e-04 | 13597.70ms`,
# modded-nanogpt's and its speedrun forks'): the step
LEADING_STEP_BAR = re.compile(r"^\s*(?P<step>\d+)\s+\|(?=\s)")
# torchtune's bar description, the epoch and the global step before the loss (`1|25|Loss:
# 1.2622:  26%|██▌  | 26/101 [..]`)
EPOCH_STEP_LOSS = re.compile(r"(?<![\w.|])(?P<epoch>\d+)\|(?P<step>\d+)\|(?=Loss:)")
LEADING_EPOCH_BATCH = re.compile(
    r"^\s*\[\s*(?P<epoch>\d+)\s*/\s*(?P<epochs>\d+)\s*\]"
    r"\s*\[\s*(?P<batch>\d+)\s*/\s*(?P<batches>\d+)\s*\]"
)


# A line that names only a fold or a trial (`===== FOLD 2/5 =====`, `Training fold 3`, `Trial 4`,
# KerasTuner's `Search: Running Trial #2`): a cross-validation's folds and a search's trials
# each train a model of their own from the start, so each opens a separate run
TRIAL_HEADER = re.compile(
    r"^[\s=*#~_|:>\[-]*(?:search:\s*)?"
    r"(?:(?:training|starting|running|begin|cv|cross[- ]validation)\s+)*"
    r"(?P<trial>(?:fold|trial)\s*(?:no\.?|#)?\s*:?\s*\d+)(?:\s*(?:/|of)\s*\d+)?"
    r"[\s=*#~_|:<.\]-]*$",
    re.I,
)


def trial_name(header: str | None, count: int) -> str:
    """The run a trial header opens, named by its first word and its number (`===== FOLD 3/5
    =====` -> `fold 3`, `Fold no. 4` -> `fold 4`); `trial <n>` when it prints a number only, and
    `trial <count>` when it prints neither."""
    words = re.findall(r"[A-Za-z]+|\d+", header or "")
    kind = next((w.lower() for w in words if w.isalpha()), "trial")
    number = next((str(int(w)) for w in words if w.isdigit()), str(count))
    return f"{kind} {number}"


@dataclass(frozen=True)
class Style:
    """One console style, declared (see the module docstring for each field)."""

    name: str
    signature: re.Pattern[str] | None = None  # a line of this style (None: any line)
    counters: tuple[re.Pattern[str], ...] = (EPOCH, STEP, BATCH)
    pairs: re.Pattern[str] = PAIRS
    eval: re.Pattern[str] | None = None
    summary: re.Pattern[str] | None = None
    restart: re.Pattern[str] | None = None
    trial: re.Pattern[str] | None = None
    skip: re.Pattern[str] | None = None
    # a counter line that opens a record spread over the lines after it, whatever its prose
    # (`Iteration 3000, Testing net (#0)`): it lends its counters instead of ending the record
    opens: re.Pattern[str] | None = None
    roles: dict[str, str] = field(default_factory=dict)
    ignore: frozenset[str] = frozenset()  # keys that are not metrics (v_num, ETA, ...)
    context: bool = True  # a line of metrics without a counter takes the last one seen
    needs_counter: bool = True  # a line with no counter (own or borrowed) is not a record
    spaced: bool = True  # `key value` pairs (needs a counter on the same line)
    max_words: int = 6  # prose left on a line beyond this: not a record
    prefix_eval: str = "eval/"
    note: str | None = None
    specific: bool = True  # a specific style wins over the generic fallback on equal counts
    # a table printed without keys (YOLO): `pairs` finds the values only (a `val` group), and
    # the n-th value on a line is the metric named n-th here
    columns: tuple[str, ...] = ()
    # a line that prints an epoch and no step or batch lends its epoch to the lines after it
    # that print a batch and no epoch, as a header with no metrics does (DARTS' `epoch 3 lr
    # 2.5e-02` over its `train 050 ..` rows)
    epoch_lines_lend: bool = False
    # a style whose keyless table rows are only some of its lines (DARTS' `train 050 <loss>
    # <top1> <top5>` among `epoch 3 lr 2.5e-02`): the lines this finds are rows, their values
    # named by `columns` in order; the others are read with `pairs`. None: every line is a row
    # when `columns` is set (its values found by `pairs`)
    columns_on: re.Pattern[str] | None = None
    # a bar's postfix keeps showing a value until it is updated: a value equal to its metric's
    # previous one is carried over, not measured again, and is dropped
    carried: bool = False
    # a bar whose redraws were left on lines of their own (a callback printed mid-epoch, a log
    # pasted without its carriage returns): of the records in a row of one epoch, each metric's
    # last value is the epoch's, the ones before it are redraws and are dropped
    last_in_epoch: bool = False
    # an epoch draws its training pass's bar and then its evaluation's, with the same keys
    # (kuangliu's pytorch-cifar): of the records of one epoch, those from where the batch count
    # starts again (or its printed length changes) are the evaluation's, named under
    # `prefix_eval` and placed at the epoch's last training step
    later_bars_eval: bool = False
    # the header that starts an epoch, its number in group 1 (Keras' `Epoch 3/20`): lines of
    # metrics before the log's first counter line, when that line is such a header, are the
    # epoch before the one it names (a log whose top was cut: a notebook's truncated output, a
    # paste that began below `Epoch 1/20`); None: such lines have no counter and are dropped
    leading_epoch: re.Pattern[str] | None = None
    # the number of the first epoch when a batch is printed with the epoch's length (`[1][ 10/196]`:
    # the steps are then (epoch - first_epoch) x length + batch); None: 0 when the log prints an
    # epoch 0, else 1
    first_epoch: int | None = None
    # evaluation lines read with their own pattern (timm's `Test: [30/30] Loss: 1.46 (1.87)`:
    # the running average, not the last batch's value)
    eval_pairs: re.Pattern[str] | None = None
    # an evaluation printed batch by batch (running averages): of the evaluation lines in a row,
    # each metric's last value is the evaluation's
    eval_last: bool = False
    # a record printing the one before it again, value for value, is that line's echo (a
    # logger's line and a `print` of it: `_repeats.not_echoed`); False for a writer that prints
    # each record once (the HF Trainer: a step the fp16 scaler skipped logs the same dict again)
    echoes: bool = True
    # a record repeating an earlier one of its run at the same step, value for value, is a
    # summary printed again (XGBoost's best round after early stopping), dropped (`_repeats`)
    repeated_round: bool = False
    # the step is printed rounded to a magnitude (`step:26K`: the counter pattern takes the
    # letter): records sharing a printed value are spread over the steps it stands for
    # (`_rounded`)
    rounded_steps: bool = False
    # read only when no other style finds a loss series (a style with no counter at all would
    # otherwise number the lines of a log that prints one)
    last_resort: bool = False
    # literal text every line of the style's holds one of (`Up. ` for Marian's): a sample
    # holding none of them is not tried when the style is chosen, which costs a parse a style
    markers: tuple[str, ...] = ()
