"""A logger's key-value boxes, as Stable-Baselines3 prints them at verbose=1 (its
`HumanOutputFormat`, inherited from OpenAI baselines): one record a box, one row a value, a
section row (`| train/ |  |`) heading the rows indented beneath it. The text reader joins each box
into one line of `section/name=value` pairs (`_text._joined_boxes`); the step is the environment
steps so far (`time/total_timesteps`, baselines' `total_timesteps`, `total/steps`,
`TimestepsSoFar`), or the optimisation step where the box prints one (OpenAI's guided-diffusion
and improved-diffusion log through the same logger: `| step | 1000 |`). The losses are the
`train/` section's (`train/loss`, `train/value_loss`), an `eval/` section is the evaluation
callback's, and the rollout's rewards and episode lengths are kept with the role other."""

import re

from lossforensics.ingest.console._style import NUM, Style

_STEPS = r"(?:(?:time|misc)/)?total_timesteps|total/steps|TimestepsSoFar|TotalEnvInteracts|step"

STYLE = Style(
    name="key-value box (Stable-Baselines3)",
    markers=("| ",),
    # a joined box (`| name=value ... |`) that names its step
    signature=re.compile(rf"^\| (?:\S+=\S+ )*?(?:{_STEPS})=\d+ (?:\S+=\S+ )*\|$"),
    counters=(re.compile(rf"(?<=\s)(?:{_STEPS})=(?P<step>\d+)(?=\s)"),),
    pairs=re.compile(rf"(?<!\S)(?P<key>[^\s=]+)(?P<sep>=)(?P<val>{NUM})(?=\s|$)"),
    context=False,
    spaced=False,
    max_words=0,
)
