"""The last resort: lines of `key: value` or `key=value` pairs that print no epoch, step or
batch at all (`2018-03-23 15:29:33,355:INFO: train loss:1.10886`, a logging call every N
iterations). With no counter anywhere, the line's place among the records is the step (the
warnings say so). Tried only when no other style finds a loss series: a counter, wherever a log
prints one, is the better axis."""

from lossforensics.ingest.console._style import Style

STYLE = Style(
    name="key-value lines without a counter",
    counters=(),
    context=False,
    needs_counter=False,
    spaced=False,
    specific=False,
    last_resort=True,
)
