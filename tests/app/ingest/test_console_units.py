"""Measurements printed with their unit (`train_time:122ms`, `mem:19152MiB`) are no prose: a
line of them beside a loss is a metric line (modded-nanogpt's, the parameter-golf runs')."""

from tests.app.ingest._console_text import read_text, roles_of, series_of

_TRAIN = (
    "step:{step}/20000 train_loss:{loss} lr_scale:1.0000 muon_mom:0.9200 train_time:{ms}ms "
    "step_avg:121.76ms this_step:121.8ms mem:19155MiB swa_n:0"
)
_VAL = "step:{step}/20000 val_loss:{loss} val_bpb:3.5663 train_time:{ms}ms step_avg:0.02ms"
_TRAIN_POINTS = [(1, 8.310329), (2, 8.986031), (3, 8.880075), (50, 4.931001), (100, 4.18442)]
MODDED_NANOGPT = "\n".join(
    [_VAL.format(step=0, loss=8.3096, ms=0)]
    + [_TRAIN.format(step=s, loss=v, ms=97 * s) for s, v in _TRAIN_POINTS]
    + [_VAL.format(step=100, loss=4.1055, ms=9712)]
)


def test_modded_nanogpt_lines_with_units_are_read():
    result = read_text(MODDED_NANOGPT)
    roles = roles_of(result)
    assert roles["train_loss"] == "train_loss" and roles["val_loss"] == "val_loss"
    steps, values = series_of(result, "train_loss")
    assert (steps, values) == tuple(map(list, zip(*_TRAIN_POINTS, strict=True)))
    assert series_of(result, "val_loss") == ([0, 100], [8.3096, 4.1055])


def test_a_unit_after_a_word_is_still_prose():
    # near miss: a sentence that happens to hold a size is not a metric line
    text = "\n".join(
        f"epoch {i}: loss {1.0 / (i + 1):.4f}\nsaved the checkpoint of this epoch to disk, "
        f"it took 12ms and weighs 340MiB in all"
        for i in range(6)
    )
    result = read_text(text)
    assert sorted(set(result.frame["metric"])) == ["loss"]


def test_a_psnr_in_decibels_is_a_value():
    # KAIR's training log (USRNet, SwinIR): the test set's PSNR every 10 epochs, in dB
    text = ""
    for epoch in range(1, 31):
        text += f"<epoch:{epoch:3d}, lr:1.000e-04> loss: {0.4 / epoch:.3e} \n"
        if epoch % 10 == 0:
            text += f"<epoch:{epoch:3d}, Average PSNR : {17 + epoch / 5:.2f}dB\n"
    result = read_text(text)
    assert series_of(result, "Average PSNR") == ([10, 20, 30], [19.0, 21.0, 23.0])
    assert len(series_of(result, "loss")[0]) == 30
