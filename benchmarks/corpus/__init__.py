"""The labelled evaluation corpus: real (tiny, CPU) training runs with pathologies induced.

    data.py      synthetic datasets (blobs, spirals, sine, procedurally drawn digits, a Markov
                 character language) generated from a seed
    models.py    small MLP / CNN / GRU and transformer language models
    trainer.py   one training loop with the knobs that induce each pathology, recording every step
    views.py     what a logger would have written: per-step, every-N-steps or per-epoch rows
    checks.py    label checks on the logged curves, independent of the project's classifiers
    recipes.py   how each label is induced (and which labels a recipe may also show)
    writers/     one writer per log format, reproducing the real writer's files
    generate.py  the command that trains, verifies, writes and packs the corpus

`sample_runs/generate.py` reuses the same pieces for the repository's sample runs.
"""
