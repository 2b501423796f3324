import json

import numpy as np
import pytest

from qtheory import results
from qtheory.errors import ParameterError


def test_table_round_trips_with_full_float_precision(results_dir):
    x = 1 / 3
    with results.ResultWriter("L-F1", parameters={"N": 10}, seed=4) as rec:
        rec.write_table([{"t": 0, "method": "sim", "mean": x}, {"t": 1, "method": "ode", "mean": 2.5}])
    table = results.read_table("L-F1")
    assert table["t"].dtype.kind == "i"
    assert table["mean"][0] == x
    assert list(table["method"]) == ["sim", "ode"]


def test_sidecar_records_parameters_seed_and_versions(results_dir):
    rec = results.ResultWriter("R-T1", parameters={"lam": 0.9, "sizes": np.arange(3)}, seed=7)
    rec.write_table([{"a": 1}])
    rec.finish(summary={"mean": np.float64(2.0)})
    meta = results.load_meta("R-T1")
    assert meta["parameters"] == {"lam": 0.9, "sizes": [0, 1, 2]}
    assert meta["seed"] == 7 and meta["summary"] == {"mean": 2.0}
    assert {"qtheory", "numpy", "numba"} <= set(meta["versions"])
    assert set(meta["files"]) == {"R-T1.csv", "R-T1.json"}


def test_nothing_is_published_before_finish(results_dir):
    rec = results.ResultWriter("U-F3", parameters={}, seed=None)
    rec.write_table([{"a": 1}])
    assert not (results_dir / "U-F3").exists()
    rec.discard()
    assert not any((results_dir / ".staging").iterdir())


def test_a_failing_block_keeps_the_previous_result(results_dir):
    with results.ResultWriter("U-F3", parameters={"v": 1}, seed=None) as rec:
        rec.write_table([{"a": 1}])
    with pytest.raises(RuntimeError):
        with results.ResultWriter("U-F3", parameters={"v": 2}, seed=None) as rec:
            rec.write_table([{"a": 2}])
            raise RuntimeError("half-way")
    assert results.load_meta("U-F3")["parameters"] == {"v": 1}
    assert results.read_table("U-F3")["a"][0] == 1


def test_finish_replaces_an_old_result_completely(results_dir):
    with results.ResultWriter("L-F2", parameters={}, seed=1) as rec:
        rec.write_table([{"a": 1}], name="extra")
    with results.ResultWriter("L-F2", parameters={}, seed=1) as rec:
        rec.write_table([{"a": 1}])
    names = {p.name for p in (results_dir / "L-F2").iterdir()}
    assert names == {"L-F2.csv", "L-F2.json"}


def test_unknown_ids_and_bad_seeds_are_rejected(results_dir):
    with pytest.raises(ParameterError, match="unknown manifest ID 'L-F9'"):
        results.ResultWriter("L-F9", parameters={}, seed=1)
    with pytest.raises(ParameterError, match="seed"):
        results.ResultWriter("L-F1", parameters={}, seed=-3)


def test_infinite_values_stay_readable_in_json(results_dir):
    with results.ResultWriter("L-F3", parameters={"horizon": float("inf")}, seed=None) as rec:
        rec.write_table([{"a": 1}])
    text = (results_dir / "L-F3" / "L-F3.json").read_text()
    assert json.loads(text)["parameters"]["horizon"] == "inf"


def test_figure_caption_names_item_preset_seed_and_data(tmp_path, monkeypatch):
    monkeypatch.setenv("QTHEORY_PRESET", "quick")
    monkeypatch.setenv("QTHEORY_OVERRIDES", '{"n_runs": 20}')
    w = results.ResultWriter("L-F2", parameters={"seed": 7}, seed=7, root=tmp_path)
    w.write_table([{"a": 1}])
    text, alt = w.figure_caption("tail", "mean paths against the ODE")
    assert text.startswith("L-F2 (tail). Mean paths against the ODE. Computed with the quick preset")
    assert w.figure_caption(None, "$q_{1,1}$ against t")[0].startswith("L-F2. $q_{1,1}$ against t.")
    assert "n_runs = 20" in text and "seed 7" in text and "L-F2.csv" in text
    assert alt == "L-F2 (tail): Mean paths against the ODE"
    w.discard()
    d = results.ResultWriter("L-X-homog", parameters={}, seed=None, root=tmp_path)
    assert "no random numbers" in d.figure_caption()[0] and "Homogeneous" in d.figure_caption()[1]
    d.discard()
