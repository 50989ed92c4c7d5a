"""mmengine / mmdetection 3: `Epoch(train)  [1][ 50/500]  lr: 1.0e-03  eta: ..  time: 0.5
loss: 1.2  loss_cls: 0.5`, `Iter(train) [ 100/90000] ...`, and `Epoch(val) [1][100/100]
coco/bbox_mAP: 0.3` for evaluation (placed at the last train step). The mmcv 1.x runner of
mmdetection 2 prints the same with commas and no `(train)`: `Epoch [1][50/962]\tlr: 2.000e-02,
eta: 2:41:52, time: 0.892, ..., loss: 0.6476` and `Epoch(val) [1][200]\tbbox_mAP: 0.0210, ...`.
An evaluation line's batch counts the evaluation's own batches, so it is not read as a train
batch."""

import re

from lossforensics.ingest.console._style import Style

STYLE = Style(
    name="mmengine",
    signature=re.compile(
        r"(?:Epoch|Iter)\((?:train|val|test)\)"
        r"|\bEpoch \[\d+\]\[\s*\d+/\d+\]\s|\bIter \[\s*\d+/\d+\]\s"
    ),
    counters=(
        re.compile(
            r"\bEpoch(?:\(train\))?\s*\[(?P<epoch>\d+)\]\s*\[\s*(?P<batch>\d+)/\s*(?P<batches>\d+)\]"
        ),
        re.compile(r"\bIter(?:\(train\))?\s*\[\s*(?P<step>\d+)/\s*(?P<steps>\d+)\]"),
        re.compile(
            r"\b(?:Epoch|Iter)\((?:val|test)\)\s*(?:\[\s*\d+\]\s*)?\[\s*(?P<vbatch>\d+)(?:/\s*\d+)?\]"
        ),
    ),
    eval=re.compile(r"\((?P<split>val|test)\)"),
    ignore=frozenset({"eta", "bbox_mAP_copypaste", "segm_mAP_copypaste"}),
    spaced=False,
    first_epoch=1,
    context=False,
)
