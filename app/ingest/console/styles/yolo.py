"""YOLOv5 (v5.0) `train.py`: under a header `Epoch gpu_mem box obj cls total labels img_size`,
one row an epoch, redrawn as a progress bar, `0/299  0G  0.1031  0.03668  0.02818  0.1679  16
640: 100% 4/4 [03:03<00:00, 45.95s/it]`: the epoch, the GPU memory, the box, objectness and
class losses, their total and the number of labels (mean losses over the epoch so far; the
bar's last state is the epoch's). The values carry no keys: they are named by their column.
The epoch is the step. The validation table below each row (`all 66 73 P R mAP@.5 ...`) is not
read. A row pasted from a narrow terminal may stop after the total loss (YOLOv7's too, under the
same header): its four losses are read.

The `results.txt` that `train.py` writes beside its weights holds the same row, without the
bar, followed by the image size and the epoch's validation results: precision, recall, mAP@.5,
mAP@.5:.95 and the validation box, objectness and class losses (the columns Ultralytics' own
`plot_results` reads: 8-14). They are named as YOLOv5's later `results.csv` names them, so one
run reads the same from either file. ultralytics/yolov3's file has F1 where mAP@.5:.95 is; its
losses sit at the same places."""

import re

from lossforensics.ingest.console._style import NUM, Style

STYLE = Style(
    name="yolov5",
    # four losses then two whole numbers: not Ultralytics' three losses (see yolov8.py); or
    # the four losses ending the row, as a paste from a narrow terminal cuts it
    signature=re.compile(
        rf"^\s*\d+/\d+\s+[\d.]+[GM]?\s+(?:(?:{NUM})\s+){{3}}(?:{NUM})"
        rf"(?:\s+\d+\s+\d+(?::|\s|$)|\s*$)"
    ),
    counters=(re.compile(r"^\s*(?P<epoch>\d+)/(?P<epochs>\d+)(?=\s)"),),
    pairs=re.compile(rf"(?<=\s)(?P<val>{NUM})(?=\s|$)"),
    columns=(
        "box",
        "obj",
        "cls",
        "total",
        "labels",
        "img_size",
        "metrics/precision",
        "metrics/recall",
        "metrics/mAP_0.5",
        "metrics/mAP_0.5:0.95",
        "val/box_loss",
        "val/obj_loss",
        "val/cls_loss",
    ),
    roles={
        "box": "train_loss",
        "obj": "train_loss",
        "cls": "train_loss",
        "total": "train_loss",
        "labels": "other",
        "img_size": "other",
        "metrics/precision": "val_score",
        "metrics/recall": "val_score",
        "metrics/mAP_0.5": "val_score",
        "metrics/mAP_0.5:0.95": "val_score",
        "val/box_loss": "val_loss",
        "val/obj_loss": "val_loss",
        "val/cls_loss": "val_loss",
    },
    context=False,
    spaced=False,
    max_words=12,
)
