"""YOLOv6 (meituan) training, from release 2.0: under a header `Epoch iou_loss dfl_loss
cls_loss`, one row an epoch redrawn as a progress bar, `1/99  0  0  0.1631: 100%|██| 106/106
[00:16<00:00,`: the epoch and the IoU, distribution-focal and class losses (the bar's last state
is the epoch's). The values carry no keys: they are named by their column. The epoch is the
step. The evaluation line after an epoch, `Epoch: 0 | mAP@0.5: 0.0 | mAP@0.50:0.95: 0.0`, gives
the validation mAPs at that epoch (`val/mAP@0.5`, `val/mAP@0.50:0.95`; no validation loss is
logged). Releases that print an `lr` column, or `l1_loss obj_loss`, have four values a row and
are not read here."""

import re

from lossforensics.ingest.console._style import NUM, Style

# the epoch, then exactly three losses, the last one ending at the bar's colon
_ROW = re.compile(rf"^\s*\d+/\d+\s+(?:(?:{NUM})\s+){{2}}(?:{NUM}):\s")
_EVALUATION = r"^\s*Epoch: (?P<epoch>\d+) \| mAP@"

STYLE = Style(
    name="yolov6",
    signature=re.compile(rf"{_ROW.pattern}|{_EVALUATION}"),
    counters=(
        re.compile(r"^\s*(?P<epoch>\d+)/(?P<epochs>\d+)(?=\s)"),
        re.compile(r"^\s*Epoch: (?P<epoch>\d+)(?= \| mAP@)"),
    ),
    # the evaluation's keys hold a colon of their own (`mAP@0.50:0.95: 0.0`)
    pairs=re.compile(rf"(?P<key>mAP@[\d.:]*\d)(?P<sep>:\s*)(?P<val>{NUM})(?=\s*(?:\||$))"),
    columns=("iou_loss", "dfl_loss", "cls_loss"),
    columns_on=_ROW,
    eval=re.compile(_EVALUATION),
    prefix_eval="val/",
    roles={"iou_loss": "train_loss", "dfl_loss": "train_loss", "cls_loss": "train_loss"},
    context=False,
    spaced=False,
    max_words=12,
)
