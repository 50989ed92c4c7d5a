"""The fallback: any line of `key: value`, `key=value`, `key is value` or `key value` pairs that
carries an epoch, step, iteration or batch (`Epoch [003/30] TrainLoss=1.87 ValLoss=1.30`, `Epoch 3:
train loss = 0.52`, `Step 100: loss 2.1`, `epoch:0 || iter:10 || Loss:19.45`, `Epoch 1/200 | Loss:
0.6924`, `[1, 2000] loss: 2.203`, `[01] train_loss 2.86 | test_loss 2.36` (a bracketed epoch opening
the line), `[100/300000] Train loss: 1.2` (a bracketed count of a total opening the line: the step),
`[1/5][50/1583] Loss_D: 0.4` (two: the epoch and its batch), `Loss at step 100: 2.1`: a counter
inside the key is cut with its `at`), values in quotes or E-notation included. A line of `key:
value` pairs with no counter belongs to the last counter printed (a record spread over several
lines); `key value` pairs count only on a line with its own counter, and a line with more prose than
metrics is not a record. A line whose text before its metrics names a split (`test epoch:3 ||
Loss:2.4`, `Validation BLEU: ...`) is an evaluation line: its metrics are kept under that word. A
mixed-precision loss scale and a perplexity (`loss scale: 65536.0`, `lm loss PPL: 150`) carry the
word loss but are not losses. fairseq's end-of-epoch averages (`| epoch 008 | loss 6.326 | ...`, `|
train | epoch 001 | loss ...`) are summaries, not train points: read as train points they would
outnumber the fairseq style's. A Keras progress bar's line (`12/12 [=====] - 1s - loss: 0.41`) is
the Keras style's to read: it knows which of an epoch's bar lines is the epoch's value. A Keras
callback's message (`val_acc did not improve from 0.10000`, `ReduceLROnPlateau reducing learning
rate to ...`) is no record: its number is a best so far or a setting; nor is a script's line
that opens with its checkpoint message (`Saving model at Epoch 1 with Validation Accuracy: ..`).
A line that only names a fold or a trial (`===== FOLD 2/5 =====`, `Training fold 3`, `Trial 4`)
opens a separate run: a cross-validation's folds and a sweep's trials each train a model of their
own from the start, so their epochs counting again is no resume."""

import re

from lossforensics.ingest.console._style import (
    BATCH,
    BATCHES_AFTER,
    EPOCH,
    EPOCH_BATCH_PAIR,
    EPOCH_BRACKETED_BATCH,
    EPOCH_OF_ALL_BATCH,
    EPOCH_OTHER_LANGUAGES,
    EPOCH_STEP_LOSS,
    EPOCH_ZH,
    LEADING_EPOCH_BATCH,
    LEADING_INDEX,
    LEADING_PROGRESS,
    LEADING_STEP_BAR,
    LEADING_STEP_GROUP,
    NUMBER_FIRST_EPOCH,
    PHASE_EPOCH_BATCH,
    ROUND,
    STEP,
    TRIAL_HEADER,
    Style,
)
from lossforensics.ingest.console.styles.keras_verbose1 import BAR as KERAS_BAR

# a Keras callback's message (`Epoch 00277: val_acc did not improve from 0.10000`): its number is
# a best so far, not a measurement of this epoch
_CALLBACK = (
    # (PyTorch's ReduceLROnPlateau says `Epoch 00003: reducing learning rate of group 0 to
    # 1.0000e-04.`: no `learning rate of group` metric at 0)
    r"\b(?:did not improve from|improved from|saving model to|ReduceLROnPlateau reducing"
    r"|reducing learning rate of group \d+ to"
    r"|Restoring model weights|early stopping"
    # ignite's (and MONAI's) engine messages: the best so far and the engine's state, no record
    # (`Key metric: val_mean_dice best value: 0.91 at epoch: 12`, `Engine run resuming from
    # iteration 0, epoch 45 until 46 epochs`)
    r"|best value: [-+\d.eE]+ at (?:epoch|iteration)|Engine run (?:resuming|complete|finished)"
    # the EarlyStopping class copied into many PyTorch repos (Informer, Time-Series-Library):
    # `Validation loss decreased (1.891971 --> 1.123654).  Saving model ...`, a best so far, and
    # `EarlyStopping counter: 3 out of 10`; the epoch's record goes on past them (its
    # `Updating learning rate to 0.0001`)
    r"|Validation loss decreased|EarlyStopping counter)\b"
    # a script's own checkpoint message, which repeats a metric it already logged (`Saving model
    # at Epoch 1 with Validation Accuracy: 33.73%`, `→ Saved best model (Dice: 0.91)`): a line
    # that opens with it, after an arrow, a mark or a tag
    r"|^[^\w\[]*(?:\[\w+\]\s*)?(?i:sav(?:e|ed|ing)\b|new best\b|best model\b)"
)

# a line naming only a fold or a trial, in any frame of rules (`===== FOLD 2/5 =====`, `Fold: 1`,
# `Training fold 3 of 5`, `Running trial 4`); a line that also prints metrics is a record
STYLE = Style(
    name="generic key-value lines",
    specific=False,
    counters=(
        LEADING_INDEX,
        LEADING_EPOCH_BATCH,
        LEADING_PROGRESS,
        LEADING_STEP_BAR,
        LEADING_STEP_GROUP,
        EPOCH_STEP_LOSS,
        NUMBER_FIRST_EPOCH,
        EPOCH_BRACKETED_BATCH,
        EPOCH_OF_ALL_BATCH,
        PHASE_EPOCH_BATCH,
        EPOCH,
        EPOCH_ZH,
        EPOCH_OTHER_LANGUAGES,
        ROUND,
        STEP,
        BATCH,
        BATCHES_AFTER,
        EPOCH_BATCH_PAIR,
    ),
    # fairseq prints its epoch with three digits (`| epoch 008 |`); `| epoch 1 |  iter 1 / 351 |`
    # (Deep Learning from Scratch's trainer) is a batch line, not an epoch's summary
    summary=re.compile(r"(?:^|\| )train \| epoch \d+ \||^\| epoch \d{3,} \| (?!valid on)"),
    skip=re.compile(rf"{KERAS_BAR.pattern}|{_CALLBACK}"),
    trial=TRIAL_HEADER,
    # `over 2828.00 frames`: the count a loss was taken over (icefall's), no metric
    ignore=frozenset({"over"}),
    roles={"*loss scale*": "other", "*loss_scale*": "other", "*PPL*": "other"},
)
