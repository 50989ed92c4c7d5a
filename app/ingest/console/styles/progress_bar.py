"""tqdm and PyTorch Lightning progress bars: `Epoch 0: 100%|####| 32/32 [00:01<00:00,
20.1it/s, v_num=0, train_loss=0.123, val_loss=0.2]`, redrawn with carriage returns: each bar's
last state is one record (a bar reset on the same line, Lightning's next epoch, ends a state:
see `_text`). The epoch in the bar's description is the step; a bar over the run's steps
(`Steps:  20%|██  | 100/500 [..., step_loss=0.249]`, diffusers' training scripts) has every state
drawn kept (`_text`) and its position as the step; another bar is numbered in order. A
script's own `print(f"\\rRunning loss: {loss}", end="")` between a bar's redraws lands right
after its bracket (simpletransformers' `| 1321/1875 [09:50<04:06, 2.25it/s]Running loss: 0.49`):
that `Key: value` is read at the bar's position. `v_num`
(Lightning's version number) is not a metric. A postfix may be words and values
(`set_postfix_str`: `Loss 6.2739, Raw Acc (0.39, 2.49), Val Loss 44.7789`, WS-DAN's; a
tuple is no value). A postfix keeps showing a value until it is
updated (Lightning's val_loss through the next epoch's bar, the train loss in the redraw after
validation): a value equal to its metric's previous one is taken as carried over and dropped,
so a metric that truly repeats its printed value loses that point; a learning rate keeps every
value (a script sets it on each bar, and a schedule's flat stretches are its course). 3D
Gaussian Splatting prints its evaluations between its bar's states, `[ITER 7000] Evaluating
test: L1 0.0348 PSNR 28.3`: the split's L1 loss and PSNR at that iteration (the `train`
split's is a score on views it trains on)."""

import re

from lossforensics.ingest.console._style import EPOCH, NUM, Style
from lossforensics.ingest.console._text import STEP_BAR_HEAD

STYLE = Style(
    name="progress bar (tqdm / lightning)",
    # (a notebook's text output drops the bar's glyphs and pipes, Colab's `Epoch 0:  97%
    # 1651/1702 [13:00<00:24, 2.11it/s, loss=0.158]`: the percentage, count and bracket remain)
    signature=re.compile(
        r"\|\s*\d+/\d+\s*\[[^\]]*\]|\d+%\||\d+%\s+\d+/\d+\s*\[[^\]]*\]"
        r"|^\[ITER \d+\] Evaluating \w+:"
    ),
    counters=(
        re.compile(r"^\[ITER (?P<step>\d+)\](?= Evaluating )"),
        re.compile(r"\bepoch\s*(?P<epoch>\d+)(?:/\d+)?\s*:(?=\s*\d+%)", re.I),
        EPOCH,
        # a bar over the run's steps (`Steps:  20%|██  | 100/500 [...]`): its position is the step
        re.compile(STEP_BAR_HEAD + r"(?P<step>\d+)/\d+"),
    ),
    # a postfix key may be two words (`set_postfix({"Depth Loss": ..})`, 3D Gaussian Splatting)
    # and end in a qualifier (Pytorch-UNet's `loss (batch)=0.198`); segmentation_models_pytorch's
    # epoch runners print `dice_loss - 0.7113` in the postfix; a logging record may follow a
    # value straight on, written before the bar ended its line (`=0.198INFO: Validation ..`)
    # a script's own `print(f"\rRunning loss: {loss}", end="")` between the bar's redraws lands
    # right after its bracket (simpletransformers' `...2.25it/s]Running loss: 0.496`): a key
    # opening there takes a colon (`after`)
    pairs=re.compile(
        r"(?:(?<=[,\[]) ?|(?<=\])(?P<after>))"
        rf"(?P<key>[A-Za-z_][\w\-/.@]*(?: [A-Za-z_][\w\-/.@]*)?(?: \([\w ]{{1,20}}\))?)"
        rf"(?P<sep>(?(after): |(?:=| - | )))(?P<val>{NUM})"
        r"(?:(?=(?:INFO|WARNING|wandb): )|(?![\w.:/]))"
    ),
    # 3D Gaussian Splatting's evaluation lines, and a bar named after a held-out split
    # (`valid: 100%|####| 21/21 [..., dice_loss - 0.64]`, segmentation_models_pytorch's)
    eval=re.compile(
        r"^(?:\[ITER \d+\] Evaluating |\s*(?=(?i:valid|val|validation|test|eval)\s*:\s*\d+%\|))"
        r"(?P<split>\w+)"
    ),
    # `L1 0.0348 PSNR 28.3`: a name and its value, the space no separator of its own
    eval_pairs=re.compile(rf"(?<=[:\s])(?P<key>L1|PSNR|SSIM|LPIPS)(?P<sep>)\s(?P<val>{NUM})"),
    roles={"test/L1": "val_loss", "train/L1": "other", "train/PSNR": "other"},
    ignore=frozenset({"v_num"}),
    carried=True,
    context=False,
    needs_counter=False,
    spaced=True,
    max_words=12,
)
