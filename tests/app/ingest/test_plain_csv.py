"""Per-step CSVs no framework logger claims (Ultralytics results.csv) and the long table."""

from __future__ import annotations

from pathlib import Path

import pytest
from lossforensics.ingest import _plain_csv, load_run
from lossforensics.ingest.detect import plan_directory


def test_yolov5_results_csv_with_padded_headers(real_runs):
    path = real_runs / "yolov5_lego_healthy" / "results.csv"
    result = load_run(path)
    frame = result.frame
    assert result.format == "csv"
    box = frame[frame["metric"] == "train/box_loss"].sort_values("step")
    assert box["step"].tolist() == list(range(50))
    assert box["value"].iloc[0] == 0.066099
    roles = frame.groupby("metric", observed=True)["role"].first().astype(str)
    assert roles["val/box_loss"] == "val_loss" and roles["x/lr0"] == "lr"
    assert roles["metrics/mAP_0.5"] == roles["metrics/precision"] == "val_score"


def test_folder_with_events_and_results_reads_one_and_says_so(real_runs):
    result = load_run(real_runs / "yolov5_lego_healthy")
    assert any("results.csv" in w.message for w in result.warnings)
    forced = load_run(real_runs / "yolov5_lego_healthy", format="csv")
    assert forced.format == "csv" and forced.files[0].endswith("results.csv")


def test_long_table_keeps_runs_and_roles(tmp_path):
    path = tmp_path / "points.csv"
    path.write_text(
        "run,metric,role,step,value,wall_time,seq\n"
        "a,score,train_loss,0,1.0,nan,0\n"
        "b,score,train_loss,0,2.0,1700000000.0,1\n"
    )
    result = _plain_csv.read(path)
    frame = result.frame
    assert frame["run"].tolist() == ["a", "b"]
    assert frame["role"].astype(str).tolist() == ["train_loss", "train_loss"]
    assert frame["wall_time"].iloc[1] == 1700000000.0


def test_a_history_table_without_steps_reads_its_rows_in_order(tmp_path):
    # pd.DataFrame(history.history).to_csv(index=False): no epoch column, one row per epoch
    path = tmp_path / "training_log.csv"
    path.write_text(
        "loss,acc,val_loss,val_acc\n"
        + "".join(
            f"{1.0 / (e + 1):.4f},{0.5 + e / 40:.4f},{1.1 / (e + 1):.4f},{0.45 + e / 40:.4f}\n"
            for e in range(12)
        )
    )
    result = load_run(path)
    assert result.format == "csv"
    loss = result.frame[result.frame["metric"] == "val_loss"]
    assert list(loss["step"]) == list(range(12))
    assert (
        dict(zip(result.frame["metric"], result.frame["role"].astype(str), strict=False))[
            "val_loss"
        ]
        == "val_loss"
    )
    assert any("row order is used as the step" in w.message for w in result.warnings)


def test_a_summary_table_keyed_by_model_is_not_a_history(tmp_path):
    path = tmp_path / "results.csv"
    path.write_text("model,loss,acc\nresnet,0.3,0.9\nvit,0.25,0.92\n")
    assert not _plain_csv.sniff(path)


def test_the_trainer_s_printed_table_keeps_its_scores_on_the_validation_side(tmp_path):
    """The Trainer's progress table pasted as text names its eval metrics without `eval_`:
    beside `Training Loss` and `Validation Loss`, Accuracy and F1 are validation scores."""
    path = tmp_path / "results.tsv"
    path.write_text(
        "Epoch\tTraining Loss\tValidation Loss\tAccuracy\tF1\n"
        "1\tNo log\t0.693147\t0.500000\t0.333333\n"
        "2\t0.350000\t0.610000\t0.580000\t0.500000\n"
        "3\t0.233333\t0.560000\t0.620000\t0.550000\n"
    )
    result = load_run(path)
    roles = dict(zip(result.frame["metric"], result.frame["role"], strict=True))
    assert roles == {
        "Training Loss": "train_loss",
        "Validation Loss": "val_loss",
        "Accuracy": "val_score",
        "F1": "val_score",
    }
    plain = tmp_path / "history.csv"  # without the Trainer's two loss names: as before
    plain.write_text("epoch,loss,accuracy,val_loss\n1,0.5,0.7,0.6\n2,0.4,0.8,0.5\n")
    roles = dict(zip(*(load_run(plain).frame[c] for c in ("metric", "role")), strict=True))
    assert roles["accuracy"] == "train_score"


def test_a_history_saved_with_the_pandas_index_reads_that_index_as_the_step(tmp_path):
    # pd.DataFrame(history.history).to_csv("history.csv"): pandas' default keeps the index, a
    # first column with no name; read back and written again it is named `Unnamed: 0`
    rows = "".join(
        f"{e},{1.0 / (e + 1):.4f},{0.5 + e / 40:.4f},{1.1 / (e + 1):.4f}\n" for e in range(8)
    )
    for head in ("", "Unnamed: 0"):
        path = tmp_path / "history.csv"
        path.write_text(f"{head},loss,accuracy,val_loss\n" + rows)
        result = load_run(path)
        roles = dict(zip(result.frame["metric"], result.frame["role"].astype(str), strict=False))
        assert roles == {"loss": "train_loss", "accuracy": "train_score", "val_loss": "val_loss"}
        assert list(result.frame.loc[result.frame["metric"] == "loss", "step"]) == list(range(8))
        assert not any("row order" in w.message for w in result.warnings)
    # near miss: an unnamed first column beside no loss is no history
    path.write_text(",name,score\n0,a,1\n1,b,2\n")
    assert not _plain_csv.sniff(path)


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        # every loss names its split, no score does: the scores are the validation set's
        ("epoch,train_loss,val_loss,dice,iou,learning_rate", {"dice": "val_score"}),
        # Keras' bare `loss`: the writer names no split, a bare accuracy is the training one
        ("epoch,loss,accuracy,val_loss,val_accuracy", {"accuracy": "train_score"}),
        # a score named train: the writer names its scores' splits, a bare one stays as read
        ("epoch,train_loss,train_acc,val_loss,f1", {"f1": "train_score"}),
    ],
)
def test_bare_scores_beside_split_named_losses_are_validation_scores(tmp_path, header, expected):
    path = tmp_path / "history.csv"
    cols = header.split(",")
    rows = [
        ",".join(str(e) if c == "epoch" else f"{0.5 - 0.1 * e:.2f}" for c in cols) for e in range(3)
    ]
    path.write_text("\n".join([header, *rows]) + "\n")
    result = load_run(path)
    roles = dict(zip(result.frame["metric"], result.frame["role"].astype(str), strict=False))
    assert {k: roles[k] for k in expected} == expected


def test_stable_baselines3_progress_csv_is_stepped_by_its_total_timesteps(tmp_path):
    path = tmp_path / "progress.csv"
    path.write_text(
        "time/iterations,rollout/ep_rew_mean,time/total_timesteps,train/value_loss,train/loss\n"
        "1,0.18,2048,,\n"
        "2,0.09,4096,0.0133,0.0076\n"
        "3,0.35,6144,0.0210,0.0112\n"
    )
    result = load_run(path)
    loss = result.frame[result.frame["metric"] == "train/loss"]
    assert list(loss["step"]) == [4096, 6144]
    assert "time/total_timesteps" not in set(result.frame["metric"])


@pytest.mark.parametrize(
    "step_key",
    ["total/steps", "misc/total_timesteps", "TotalEnvInteracts", "timesteps_total"],
)
def test_rl_loggers_are_stepped_by_their_environment_steps(tmp_path, step_key):
    """OpenAI baselines (`total/steps`, `misc/total_timesteps`), Spinning Up
    (`TotalEnvInteracts`) and RLlib (`timesteps_total`) count environment steps under their own
    names; read as a metric, the rows' order was the step."""
    path = tmp_path / "progress.csv"
    path.write_text(
        f"rollout/return,train/loss_critic,{step_key},total/episodes\n"
        "-262.3,0.51,2000,14\n"
        "-250.1,0.47,4000,27\n"
        "-231.9,0.45,6000,41\n"
    )
    result = load_run(path)
    loss = result.frame[result.frame["metric"] == "train/loss_critic"]
    assert list(loss["step"]) == [2000, 4000, 6000]
    assert step_key not in set(result.frame["metric"])
    assert not result.warnings


def test_a_column_naming_each_rows_split_keeps_the_splits_apart(tmp_path):
    """`epoch,type,loss,lr` with train, validation and test rows: merged, the train loss would
    interleave three splits' values at repeated steps."""
    path = tmp_path / "loss_log.csv"
    rows = ["epoch,type,loss,lr"]
    for e in range(1, 4):
        rows += [f"{e},train,{0.9 / e:.3f},0.001", f"{e},validation,{1.0 / e + 0.1:.3f},0.001"]
    rows.append("3,test,0.450,0.001")
    path.write_text("\n".join(rows) + "\n")
    result = load_run(path)
    frame = result.frame
    roles = dict(zip(frame["metric"], frame["role"].astype(str), strict=False))
    assert roles == {
        "loss": "train_loss",
        "lr": "lr",
        "validation/loss": "val_loss",
        "test/loss": "val_loss",
    }
    train = frame[frame["metric"] == "loss"]
    assert list(train["step"]) == [1, 2, 3] and list(train["value"]) == [0.9, 0.45, 0.3]
    assert not any("non-numeric" in w.message for w in result.warnings)


def test_a_phase_column_of_train_and_val_rows_keeps_the_splits_apart(tmp_path):
    """`epoch,step,phase,loss,f1_macro`: a long table whose `phase` names each row's split (not
    a session): the val rows' loss is the validation loss, their F1 a validation score."""
    path = tmp_path / "training_metrics.csv"
    rows = ["epoch,step,phase,loss,f1_macro"]
    for e in range(1, 4):
        rows += [f"{e},{s},train,{3.0 / s:.4f}," for s in range(e * 100 - 50, e * 100 + 1, 50)]
        rows.append(f"{e},{e * 100},val,{2.0 / e + 0.5:.4f},{0.2 * e:.2f}")
    path.write_text("\n".join(rows) + "\n")
    frame = load_run(path).frame
    roles = dict(zip(frame["metric"], frame["role"].astype(str), strict=False))
    assert roles["loss"] == "train_loss" and roles["val/loss"] == "val_loss"
    assert roles["val/f1_macro"] == "val_score" and "f1_macro" not in roles
    assert frame[frame["metric"] == "loss"]["step"].tolist() == [50, 100, 150, 200, 250, 300]
    assert set(frame["segment"]) == {0}


def test_numbered_losses_read_the_first_as_the_loss_and_keep_the_others(tmp_path):
    """`,loss0,loss1,acc0,acc1` (pandas' index, then a DataFrame of `[train, test]` curves): no
    name says the split; `loss0` is read as the loss, `loss1` kept with role other and the
    warning says how to name it; given roles, they are read as told, with no warning."""
    path = tmp_path / "losses.csv"
    path.write_text(",loss0,loss1,acc0,acc1\n0,1.75,1.76,81.7,79.1\n1,1.65,1.67,84.5,82.0\n")
    result = load_run(path)
    roles = dict(zip(result.frame["metric"], result.frame["role"].astype(str), strict=False))
    assert (roles["loss0"], roles["loss1"]) == ("train_loss", "other")
    assert any("--role 'loss1=val_loss'" in w.message for w in result.warnings)
    result = load_run(path, format="csv", roles={"loss0": "train_loss", "loss1": "val_loss"})
    loss = result.frame[result.frame["metric"] == "loss1"]
    assert list(loss["step"]) == [0, 1] and set(loss["role"].astype(str)) == {"val_loss"}
    assert not any("numbered losses" in w.message for w in result.warnings)


def test_a_table_under_a_block_of_comment_lines_is_read_from_its_header(tmp_path):
    """`# Base Learning Rate: 0.01000` lines and a blank line above `Epoch,Accuracy,Loss`: the
    table is read (it was refused as no format), and a bad cell's line counts the comments."""
    path = tmp_path / "training_metrics.csv"
    path.write_text(
        "# Training configuration\n# Base Learning Rate: 0.01000\n\n"
        "Epoch,Accuracy,Loss\n1,93.4050,0.215935\n2,96.7333,oops\n3,97.1,0.08\n"
    )
    result = load_run(path)
    loss = result.frame[result.frame["metric"] == "Loss"]
    assert result.format == "csv"
    assert list(loss["step"]) == [1, 3] and list(loss["value"]) == [0.215935, 0.08]
    assert [w.line for w in result.warnings if "non-numeric" in w.message] == [6]


def test_a_comment_block_over_text_is_no_table(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text(
        "# run notes\n# lr 0.01\nepoch 1, loss 0.52, acc 0.81\nepoch 2, loss 0.41, acc 0.85\n"
    )
    assert _plain_csv.sniff(path) is False
    notes = tmp_path / "README.md"
    notes.write_text("# Notes\n\nWe trained for 3 epochs; loss 0.5.\n")  # one line, a `;`
    assert _plain_csv.sniff(notes) is False


def test_cells_holding_a_printed_tensor_are_read_as_its_number(tmp_path):
    """`str(loss)` without `.item()` writes `tensor(3.1304, device='cuda:0', ...)`: the number
    is the value (the file was refused as holding no numeric points); other text stays bad."""
    path = tmp_path / "losses.csv"
    path.write_text(
        "Epoch,Train_loss,Val_loss\n"
        "1,\"tensor(3.1304, device='cuda:0', grad_fn=<DivBackward0>)\","
        "\"tensor(2.9495, device='cuda:0')\"\n"
        "2,\"tensor(2.5, device='cuda:0')\",array([2.4])\n"
        "3,np.float64(2.1),oops\n"
    )
    result = load_run(path)
    train = result.frame[result.frame["metric"] == "Train_loss"]
    val = result.frame[result.frame["metric"] == "Val_loss"]
    assert list(train["value"]) == [3.1304, 2.5, 2.1] and list(val["value"]) == [2.9495, 2.4]
    assert any("'oops'" in w.message for w in result.warnings)


def test_a_model_column_naming_two_models_makes_two_runs(tmp_path):
    """`model,epoch,loss` with an MLP's 3 epochs then a CNN's: two runs, not one resumed at
    epoch 1 with a loss jump; a model column of one model keeps one run."""
    path = tmp_path / "results.csv"
    rows = ["model,epoch,loss,val_accuracy"]
    rows += [f"MLP(flatten pixels),{e},{0.5 / e:.3f},0.{30 + e}" for e in range(1, 4)]
    rows += [f"CNN-local features,{e},{2.4 / e:.3f},0.{40 + e}" for e in range(1, 4)]
    path.write_text("\n".join(rows) + "\n")
    result = load_run(path)
    assert result.runs == ["MLP(flatten pixels)", "CNN-local features"]
    assert not any("non-numeric" in w.message for w in result.warnings)
    single = tmp_path / "one.csv"
    single.write_text("model,epoch,loss\nresnet,1,0.9\nresnet,2,0.7\nresnet,3,0.6\n")
    assert load_run(single).runs == ["one"]


def test_a_run_id_column_names_separate_runs(tmp_path):
    """Six attack runs appended in one `epoch_metrics.csv`, told apart by `run_id` (epoch back at
    1 for each): runs of their own, not segments of one."""
    rows = ["run_id,epoch,loss,clean_acc"]
    for run in ("20250611T175536", "20250611T175735"):
        rows += [f"{run},{e},{1.0 / e:.3f},0.{50 + e}" for e in range(1, 6)]
    path = tmp_path / "epoch_metrics.csv"
    path.write_text("\n".join(rows) + "\n")
    frame = load_run(path).frame
    assert sorted(frame["run"].unique()) == ["20250611T175536", "20250611T175735"]
    assert set(frame["segment"]) == {0} and "run_id" not in set(frame["metric"])


def test_a_tensorboard_export_of_tag_step_value_is_a_long_table(tmp_path):
    """tbparse's `reader.scalars.to_csv()` (or an events-to-CSV script): one point a row, the
    metric named `tag`; the event file's path beside it is no metric."""
    path = tmp_path / "loss_history.csv"
    rows = ["filename,tag,step,value"]
    for step in (100, 200, 300):
        rows.append(f"./tb/events.out.tfevents.1,train/current_loss,{step},{3 - step / 1000}")
        rows.append(f"./tb/events.out.tfevents.1,train/tot_loss,{step},{2.7 - step / 2000}")
    path.write_text("\n".join(rows) + "\n")
    result = load_run(path)
    f = result.frame
    assert result.format == "csv" and set(f["metric"]) == {"train/current_loss", "train/tot_loss"}
    part = f[f["metric"] == "train/tot_loss"].sort_values("step")
    assert part["step"].tolist() == [100, 200, 300]
    assert part["value"].tolist()[0] == pytest.approx(2.65)


def test_mlflow_metric_history_names_its_metric_key_and_its_run_run_id(tmp_path):
    path = tmp_path / "history.csv"
    path.write_text(
        "key,value,timestamp,step,run_id\n"
        "loss,2.0,1700000000000,0,a1\nloss,1.5,1700000001000,1,a1\n"
        "val_loss,2.1,1700000001000,1,a1\nloss,1.9,1700000000000,0,b2\n"
    )
    f = load_run(path).frame
    roles = dict(zip(f["metric"], f["role"], strict=False))
    assert roles == {"loss": "train_loss", "val_loss": "val_loss"}
    assert sorted(f["run"].unique()) == ["a1", "b2"]


def test_catboost_learn_and_test_files_are_one_run_with_its_validation_loss():
    """CatBoost writes `learn_error.tsv` and `test_error.tsv` side by side: read apart they were
    two runs, each with `RMSE` as its training loss. Together they are one run, the eval set's
    objective its validation loss (the objective is a loss here, not an error score)."""
    folder = Path(__file__).parent / "real_excerpts" / "catboost_info"
    result = load_run(folder)
    assert result.runs == ["catboost_info"]
    roles = result.frame.groupby("metric", observed=True)["role"].first().astype(str)
    assert roles.to_dict() == {"RMSE": "train_loss", "test_RMSE": "val_loss"}
    val = result.frame[result.frame["metric"] == "test_RMSE"].sort_values("step")
    assert val["step"].tolist() == list(range(20))
    plan = plan_directory(folder)
    assert plan.sources == [folder]  # the pair is one source, as the audit and `diagnose` read it


def _losses_frame(rows: list[tuple[float, float]]) -> str:
    """A custom loop's per-split DataFrame of loss parts written with pandas' index."""
    out = ",epoch,loss_classifier,total_loss\n"
    return out + "".join(f"{i},{i},{a},{b}\n" for i, (a, b) in enumerate(rows))


def test_a_train_part_and_a_val_part_of_the_same_columns_are_one_run(tmp_path):
    """A Mask R-CNN loop saves `train_loss.csv` and `val_loss.csv`, each a pandas DataFrame of
    the same loss parts: read apart they were two runs, each a training loss (the validation
    one "flat from its first step"). Together they are one run, the validation part's
    columns `val_<name>`; the folder is one source for the audit too."""
    folder = tmp_path / "maskrcnn"
    folder.mkdir()
    (folder / "train_loss.csv").write_text(
        _losses_frame([(0.09 - 0.005 * e, 0.46 - 0.02 * e) for e in range(12)])
    )
    (folder / "val_loss.csv").write_text(
        _losses_frame([(0.06 + 0.002 * abs(e - 3), 0.35 + 0.01 * abs(e - 3)) for e in range(12)])
    )
    result = load_run(folder)
    assert result.runs == ["maskrcnn"]
    roles = result.frame.groupby("metric", observed=True)["role"].first().astype(str)
    assert roles["total_loss"] == "train_loss" and roles["val_total_loss"] == "val_loss"
    assert set(roles.index) == {
        "loss_classifier",
        "total_loss",
        "val_loss_classifier",
        "val_total_loss",
    }
    assert plan_directory(folder).sources == [folder]
    # near miss: a validation file that names its own columns is a table of its own
    (folder / "val_loss.csv").write_text("epoch,val_total_loss\n0,0.4\n1,0.38\n")
    assert sorted(load_run(folder).runs) != ["maskrcnn"]


def test_an_evaluation_file_holds_validation_scores_and_losses(tmp_path):
    """sentence-transformers writes each evaluator's results to `<name>_results.csv`: a real
    one's bare correlations are the dev set's, not training scores. A loss in a file named
    as an evaluation is the validation loss; a table that names its splits keeps its names."""
    real = Path(__file__).parent / "real_excerpts" / "sbert_eval"
    f = load_run(real / "similarity_evaluation_sts-dev_results.csv").frame
    roles = dict(zip(f["metric"], f["role"].astype(str), strict=False))
    assert roles["cosine_spearman"] == "val_score" and roles["steps"] == "other"
    path = tmp_path / "eval_results.csv"
    path.write_text("step,loss,accuracy\n100,0.9,0.5\n200,0.8,0.6\n300,0.85,0.62\n")
    f = load_run(path).frame
    roles = dict(zip(f["metric"], f["role"].astype(str), strict=False))
    assert roles == {"loss": "val_loss", "accuracy": "val_score"}
    named = tmp_path / "dev_metrics.csv"
    named.write_text("step,train_loss,val_loss,accuracy\n1,0.9,1.0,0.5\n2,0.8,0.9,0.6\n")
    f = load_run(named).frame
    assert dict(zip(f["metric"], f["role"].astype(str), strict=False))["train_loss"] == "train_loss"


def test_a_logger_that_ends_every_line_with_its_delimiter():
    """bearpaw's `Logger` writes a tab after every cell, so the header's last name is empty:
    the table was refused as having an unnamed column."""
    path = Path(__file__).parent / "real_excerpts" / "bearpaw_logger" / "log.txt"
    result = load_run(path)
    f = result.frame
    roles = dict(zip(f["metric"], f["role"].astype(str), strict=False))
    assert roles == {
        "Learning Rate": "lr",
        "Train Loss": "train_loss",
        "Valid Loss": "val_loss",
        "Train Acc.": "train_score",
        "Valid Acc.": "val_score",
    }
    loss = f[f["metric"] == "Train Loss"]
    assert loss["step"].tolist() == list(range(30)) and loss["value"].iloc[0] == 2.323891


def test_a_title_over_comma_separated_key_value_lines_is_no_table(tmp_path):
    """`Results` over `Epoch [1/100], Iteration [200/1952], Loss: 2.56, Accuracy: 5.0` lines:
    the title was skipped and the first record taken for a CSV header, and the file refused
    with no numeric points. A header whose cells print numbers is a record, the console
    reader's."""
    text = "Results\n" + "".join(
        f"Epoch [1/100], Iteration [{i}/1952], Loss: {2.6 - i / 1000:.4f}, Accuracy: {i / 100}\n"
        for i in range(200, 1001, 200)
    )
    path = tmp_path / "log.txt"
    path.write_text(text)
    result = load_run(path)
    assert result.format == "console"
    loss = result.frame[result.frame["metric"] == "Loss"]
    assert loss["step"].tolist() == [200, 400, 600, 800, 1000]


def test_an_elision_over_space_separated_key_value_records_is_no_table(tmp_path):
    """A paste that opens with `...` (the lines cut above it) over TensorFlow's text-CNN
    `2018-03-21T13:56:22.703288: step 3866, loss 0.43315, acc 0.90625`: the first record was
    taken for a CSV header (its `step` a step column) and the file refused with no numeric
    points. A decimal number ending a cell after a space is a printed value, not a name."""
    text = "...\n" + "".join(
        f"2018-03-21T13:56:{10 + i}.703288: step {3866 + i}, loss {0.43 - i / 100:.5f}, "
        f"acc {0.90625 + i / 1000:.5f}\n"
        for i in range(8)
    )
    path = tmp_path / "log.txt"
    path.write_text(text)
    result = load_run(path)
    assert result.format == "console"
    loss = result.frame[result.frame["metric"] == "loss"]
    assert loss["step"].tolist() == list(range(3866, 3874))
