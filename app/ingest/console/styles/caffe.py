"""Caffe's solver, glog lines (their `I1117 21:57:48.058 33463 solver.cpp:191] ` prefix is cut
before any style reads them): `Iteration 3000, loss = 1.30` (the loss averaged over the
solver's `average_loss` iterations), `Iteration 3000, lr = 0.001`, and after
`Iteration 3000, Testing net (#0)` each output of the test net, `Test net output #1: loss =
1.15 (* 1 = 1.15 loss)`, kept under `test/` (the weighted contribution in brackets is not a
value of its own). `Train net output #0: ...` repeats the iteration's outputs unaveraged: it is
left out, so the train loss is one series. scikit-learn's MLP estimators (`verbose=True`) print
the same `Iteration 3, loss = 0.41` lines, and with early stopping a `Validation score: 0.85`
under each: the held-out score of that iteration."""

import re

from lossforensics.ingest.console._style import _END, _KEY, NUM, STEP, Style

STYLE = Style(
    name="caffe",
    signature=re.compile(r"^\s*(?:Iteration \d+|Test net output #\d+:|Validation score: )"),
    counters=(STEP,),
    pairs=re.compile(
        rf"(?P<key>{_KEY})(?P<sep>\s*=\s*|(?<=Validation score): )(?P<val>{NUM}){_END}"
        rf"(?:\s*\(\*\s*(?:{NUM})\s*=\s*(?:{NUM})\s*loss\))?"
    ),
    eval=re.compile(r"^\s*(?:Test net output #\d+:|Validation score: )"),
    prefix_eval="test/",
    skip=re.compile(r"^\s*Train net output #\d+:"),
    opens=re.compile(r"Testing net \(#\d+\)"),
    spaced=False,
)
