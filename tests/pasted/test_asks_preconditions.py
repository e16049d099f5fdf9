"""Asks that can run where they are printed (issue 27, kind 3): a Python probe declares what it needs once
(gpudoctor.planner.tool_floors: the module it imports, the first release of the call it makes), and where the paste
shows one unmet (the import failing, a release or a date older than the call) the ask is replaced by pip's view of the
module's distributions, which runs on any release; the consequence model counts the same need.

Each rule on whole reports of tests/blind (cited by path), with its quiet twin: the same report dated after the call
existed keeps the call."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.cmdline import Cmd
from gpudoctor.planner.tool_floors import CALLS, imported, unrunnable
from tests.pasted.test_asks_the_report_can_run import _asked, _case, _check, _programs

PLANS10 = Path(__file__).resolve().parent.parent / "blind/plans10/cases"


# tests/blind/plans10/cases/1001-…: XLA's glog lines dated 2020-10-05, two years before jax 0.3.18 (2022-09-26)
def test_a_jax_logged_before_print_environment_info_is_asked_through_pip(tmp_path):
    doc = _check(tmp_path, _case("1001", PLANS10))
    assert not [p for p in _programs(doc) if "print_environment_info" in p]
    assert ["python3", "-m", "pip", "list"] in _asked(doc)  # (what answers it, in its place)


def test_the_same_log_dated_after_the_call_keeps_it(tmp_path):
    text = _case("1001", PLANS10).replace("2020-10-05 ", "2023-10-05 ")
    doc = _check(tmp_path, text)
    assert any("jax.print_environment_info()" in p for p in _programs(doc))


# tests/blind/plans10/cases/1028-…: torch from conda-bld/pytorch_1502009910772 (built 2017-08-06), before collect_env
def test_a_torch_built_before_collect_env_is_not_asked_to_run_it(tmp_path):
    doc = _check(tmp_path, _case("1028", PLANS10))
    assert "torch.utils.collect_env" not in _programs(doc)
    assert ["python3", "-m", "pip", "list"] in _asked(doc)


def test_another_packages_conda_build_does_not_date_torch(tmp_path):
    text = _case("1028", PLANS10).replace("pytorch_1502009910772", "magma_1502009910772")
    doc = _check(tmp_path, text)
    assert "torch.utils.collect_env" in _programs(doc)


def test_a_torch_built_after_collect_env_keeps_it(tmp_path):
    text = _case("1028", PLANS10).replace("pytorch_1502009910772", "pytorch_1546300800000")  # 2019-01-01
    doc = _check(tmp_path, text)
    assert "torch.utils.collect_env" in _programs(doc)


# -- the need itself, as data


class _Facts:
    """What unrunnable reads of a report: its cues and failure lines, no framework shown."""

    class pasted:  # noqa: N801
        cues = [{"cue": "a package whose import failed", "means": "cupy", "line": ">>> import cupy"}]
        errors = ()

    frameworks = None


def test_a_probe_of_a_module_whose_import_failed_cannot_run_and_another_module_can():
    assert unrunnable(Cmd(("python", "-c", "import cupy; cupy.show_config()")), _Facts) is not None
    assert unrunnable(Cmd(("python", "-c", "import sys, cupy as cp; print(cp.__version__)")), _Facts) is not None
    assert unrunnable(Cmd(("python", "-c", "import torch; print(torch.__version__)")), _Facts) is None
    assert unrunnable(Cmd(("python", "-m", "pip", "list")), _Facts) is None


def test_each_call_is_found_by_its_module_and_names_its_source():
    assert imported(Cmd(("python3", "-m", "torch.utils.collect_env")))[0] == {"torch"}
    assert imported(Cmd(("python3", "-c", "import sys, tensorflow as tf; print(tf.config)")))[0] == {"sys", "tensorflow"}
    assert imported(Cmd(("python3", "-c", "from jax.lib import xla_bridge")))[0] == {"jax"}
    assert all(c.source and c.minimum for c in CALLS)


# tests/blind/plans12/cases/1219-…: "But trying to import cupy fails with" and the ImportError quoted below it
PLANS12 = Path(__file__).resolve().parent.parent / "blind/plans12/cases"


def _cues(doc: dict) -> list[str]:
    return [c["means"] for c in doc["facts"]["pasted"]["cues"] if c["cue"] == "a package whose import failed"]


def test_an_import_said_failing_above_its_error_is_not_asked_through_that_import(tmp_path):
    doc = _check(tmp_path, _case("1219", PLANS12))
    assert _cues(doc) == ["cupy"]
    assert not [p for p in _programs(doc) if "import cupy" in p]
    assert ["python", "-m", "pip", "list"] in _asked(doc)


def test_an_import_said_to_work_keeps_the_probe_that_imports_it(tmp_path):
    text = _case("1219", PLANS12).replace(
        "But trying to import cupy fails with", "Importing cupy works; a solver call fails with"
    )
    doc = _check(tmp_path, text)
    assert _cues(doc) == []
    assert any("import cupy" in p for p in _programs(doc))


# tests/blind/plans11/cases/1104-…: a Tesla K80 (Kepler, whose last driver branch is R470) asked for compute_cap, a
# field no R470 nvidia-smi has
PLANS11 = Path(__file__).resolve().parent.parent / "blind/plans11/cases"


def _smi_queries(doc: dict) -> list[list[str]]:
    return [argv for argv in _asked(doc) if argv[:1] == ["nvidia-smi"] and any(w.startswith("--query-gpu=") for w in argv)]


def test_a_kepler_gpu_named_in_the_paste_is_asked_no_compute_cap_field(tmp_path):
    # The paste names the K80, so the GPU query is not asked at all (its answer is stated: pasted.ask drops an ask
    # whose fact the paste gives, h199); above all, no R470-driven GPU is ever asked for the compute_cap field.
    doc = _check(tmp_path, _case("1104", PLANS11))
    assert not [q for q in _smi_queries(doc) if any("compute_cap" in w for w in q)]
    assert _smi_queries(doc) == []


def test_a_gpu_the_paste_does_not_name_keeps_the_compute_cap_field(tmp_path):
    # the twin: no GPU named, so no driver branch caps the query, and the field that decides is asked
    text = _case("1104", PLANS11).replace("NVIDIA Tesla K80 GPU", "our GPU").replace("Tesla K80 GPU", "our GPU")
    assert "K80" not in text
    doc = _check(tmp_path, text)
    assert ["nvidia-smi", "--query-gpu=name,compute_cap", "--format=csv"] in _smi_queries(doc)


def _driven_by(version: str) -> object:
    from types import SimpleNamespace

    return SimpleNamespace(driver=SimpleNamespace(version=version, gpus=()), pasted=SimpleNamespace(cues=(), errors=()))


def test_a_driver_of_r470_or_older_lacks_compute_cap_and_a_newer_has_it():
    from gpudoctor.planner.tool_floors import instead

    query = Cmd(("nvidia-smi", "--query-gpu=name,compute_cap,driver_version", "--format=csv"))
    assert unrunnable(query, _driven_by("470.82.01")) is not None
    assert instead(query) == Cmd(("nvidia-smi", "--query-gpu=name,driver_version", "--format=csv"))
    assert instead(Cmd(("nvidia-smi", "--query-gpu=compute_cap", "--format=csv"))) == Cmd(("nvidia-smi", "-L"))
    assert unrunnable(query, _driven_by("535.104.05")) is None
    assert unrunnable(Cmd(("nvidia-smi", "--query-gpu=name", "--format=csv")), _driven_by("418.67")) is None


# -- the consequence model counts the same need, before any command changes the machine


def test_the_model_fails_the_probe_before_a_change_and_not_after_one():
    from gpudoctor.host.replay import ReplayHost
    from gpudoctor.host.snapshot import validate_snapshot
    from gpudoctor.matrix import load_matrix
    from gpudoctor.pasted import Source, read_pasted
    from gpudoctor.pipeline import CheckRequest, check
    from gpudoctor.planner.actions import classify
    from gpudoctor.planner.effects import enrich
    from gpudoctor.planner.needs import needs
    from gpudoctor.planner.plan_state import State
    from gpudoctor.probed import Found

    snap = validate_snapshot(read_pasted([Source("input.txt", _case("1219", PLANS12))]), "1219")
    facts = check(ReplayHost(snap), CheckRequest()).report.facts
    probe = Cmd(("python", "-c", "import cupy; cupy.show_config()"))

    def refused(*lines: Cmd) -> list[str]:
        s = State(enrich(facts), load_matrix())
        for line in lines:
            needs(s, classify(line))
        return [v.command for v in s.out if v.kind == "unmet-precondition" and "import cupy" in v.reason]

    assert isinstance(facts.frameworks.python, Found)
    assert len(refused(probe)) == 1
    assert refused(Cmd(("python", "-m", "pip", "install", "--force-reinstall", "cupy-cuda111")), probe) == []
