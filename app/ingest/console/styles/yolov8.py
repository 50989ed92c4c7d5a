"""Ultralytics YOLOv8 / YOLO11 detection training: under a header `Epoch GPU_mem box_loss
cls_loss dfl_loss Instances Size`, one row an epoch redrawn as a progress bar, `70/1000  6.73G
1.081  0.4706  1.084  10  640: 100%|██| 16/16 [00:05<00:00, 2.78it/s]`: the epoch, the GPU
memory, the box, class and distribution-focal losses (means over the epoch so far; the bar's
last state is the epoch's) and the number of instances in the last batch. The values carry no
keys: they are named by their column. The epoch is the step. The validation table under each
row (`all  722  1444  0.989  0.99  0.993  0.681`) is not read. YOLOv5 from v6.2 prints rows of
the same shape with `box_loss obj_loss cls_loss`: they are read here too, under these names."""

import re

from lossforensics.ingest.console._style import NUM, Style

STYLE = Style(
    name="ultralytics yolov8",
    # three losses, then the instances and the image size (then the bar)
    signature=re.compile(rf"^\s*\d+/\d+\s+[\d.]+[GM]?\s+(?:(?:{NUM})\s+){{3}}\d+\s+\d+(?::|\s*$)"),
    counters=(re.compile(r"^\s*(?P<epoch>\d+)/(?P<epochs>\d+)(?=\s)"),),
    pairs=re.compile(rf"(?<=\s)(?P<val>{NUM})(?=\s)"),
    columns=("box_loss", "cls_loss", "dfl_loss", "instances"),
    roles={
        "box_loss": "train_loss",
        "cls_loss": "train_loss",
        "dfl_loss": "train_loss",
        "instances": "other",
    },
    context=False,
    spaced=False,
    max_words=12,
)
