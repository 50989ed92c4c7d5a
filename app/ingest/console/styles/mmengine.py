"""mmengine / mmdetection 3: `Epoch(train)  [1][ 50/500]  lr: 1.0e-03  eta: ..  time: 0.5
loss: 1.2  loss_cls: 0.5`, `Iter(train) [ 100/90000] ...`, and `Epoch(val) [1][100/100]
coco/bbox_mAP: 0.3` for evaluation (placed at the last train step)."""

import re

from lossforensics.ingest.console._style import Style

STYLE = Style(
    name="mmengine",
    signature=re.compile(r"(?:Epoch|Iter)\((?:train|val|test)\)"),
    counters=(
        re.compile(
            r"Epoch\((?:train|val|test)\)\s*\[(?P<epoch>\d+)\]\s*\[\s*(?P<batch>\d+)/\s*\d+\]"
        ),
        re.compile(r"Iter\((?:train|val|test)\)\s*\[\s*(?P<step>\d+)/\s*\d+\]"),
    ),
    eval=re.compile(r"\((?P<split>val|test)\)"),
    ignore=frozenset({"eta"}),
    spaced=False,
    context=False,
)
