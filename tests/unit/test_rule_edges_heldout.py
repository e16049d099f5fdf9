"""Edges found by the held-out mutation sample (tools/mutate.py --sample 200 --seed 21: docs/testing.md),
outside checks/: what `gpudoctor install` chooses and says, the verdicts of `--require`, the text of the
Prometheus, NFD, Markdown and SVG renderers, and what `switch-cuda` leaves on disk when a step fails.

Each expectation is worked out by hand from the rule and the matrix rows (compat_matrix/*.toml):
- JAX (compat_matrix/jax.toml): 0.11.0's CUDA 13 build lists its cubins (7.5 ... 12.0); 0.12.0 lists none, so
  those of the last row that gives them (0.11.0) are assumed, and the plan says so. CUDA 13 needs a driver >=
  580.65.06 (jax.toml driver_linux; cuda_driver.toml).
- A cubin for X.y runs on X.z with z >= y (CUDA C Programming Guide, "Binary Compatibility":
  https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#binary-compatibility).
- Prometheus text format 0.0.4 (https://prometheus.io/docs/instrumenting/exposition_formats/); NFD feature
  labels (https://kubernetes-sigs.github.io/node-feature-discovery/stable/usage/customization-guide.html#feature-files):
  a label value is at most 63 characters of [A-Za-z0-9._-], starting and ending with a letter or digit.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

from gpudoctor.checks.requirements import RequirementSyntaxError, evaluate, parse_requirement, parse_requirements
from gpudoctor.model import ExitCode
from gpudoctor.planner.model import Target
from gpudoctor.render.markdown import render_markdown
from gpudoctor.render.nfd import label_value, nfd_labels
from gpudoctor.render.prometheus import render_prometheus
from gpudoctor.render.xmltext import markup
from tests.unit.test_install_plan import plan_for
from tests.unit.test_rule_edges_requirements import facts as facts  # noqa: F401 - the fixture: two RTX 2070s
from tests.unit.test_rule_edges_requirements import met, with_gpu
from tests.unit.test_rule_edges_survivors import report_of

# RTX 4000 SFF Ada (compute capability 8.9) on driver 595.84 (CUDA 13.2), Python 3.13.1 (tests/machines/<this>).
ADA_595 = "rtx4000ada-driver595-py313-uv"
ADA_KERNELS = "has kernels for GPU 0 NVIDIA RTX 4000 SFF Ada Generation (sm_89, Ada Lovelace): its sm_80 cubins run there"


# --- gpudoctor install: JAX -----------------------------------------------------------------------------------


def test_jax_without_an_architecture_list_says_whose_it_assumes():
    # 0.12.0 is the newest row and needs Python >= 3.12 (3.13.1 here); its CUDA 13 build lists no architectures,
    # so 0.11.0's are taken and the plan says so; 0.11.0's CUDA 13 list has 8.0 but no 8.9, so the sm_80 cubins
    # run on the Ada GPU. 595.84 >= 580.65.06 runs CUDA 13.0 fully, and the judgement names that floor.
    plan = plan_for(ADA_595, "jax")
    assert (plan.chosen.build.release, plan.chosen.build.variant) == ("0.12.0", "cuda13")
    assert [j.text for j in plan.chosen.judgements] == [
        "Python 3.13.1 is within JAX 0.12.0+'s >=3.12",
        "driver 595.84 runs CUDA 13.0 fully (needs >= 580.65.06)",
        "the matrix lists no architectures for JAX 0.12.0 (CUDA 13); those of 0.11.0 are assumed",
        ADA_KERNELS,
    ]


def test_jax_with_its_own_architecture_list_assumes_nothing():
    # 0.11.0 lists its own CUDA 13 architectures: nothing is taken from an older row (0.7.2), so no note.
    plan = plan_for(ADA_595, "jax", "0.11.0")
    assert (plan.chosen.build.release, plan.chosen.build.variant) == ("0.11.0", "cuda13")
    assert [j.text for j in plan.chosen.judgements] == [
        "Python 3.13.1 is within JAX 0.11.0+'s >=3.12",
        "driver 595.84 runs CUDA 13.0 fully (needs >= 580.65.06)",
        ADA_KERNELS,
    ]


# --- gpudoctor install: PyTorch and the plan's notes ------------------------------------------------------------


def test_an_older_patch_release_than_the_installed_one_is_a_downgrade_not_already_installed():
    # torch 2.2.1+cu121 is installed (driver 565 runs CUDA 12.1). Asking for 2.2.0 names one version: the same
    # series and CUDA, but not the same release, so the plan downgrades to 2.2.0+cu121; asking for 2.2.1 is
    # already installed.
    older = plan_for("h100x8-driver565-torch221-cu121", "torch", "2.2.0")
    assert older.chosen.build.specs == ("torch==2.2.0+cu121",)
    assert older.already is False
    assert (older.change.kind, older.change.before, older.change.after) == ("downgrade", "2.2.1+cu121", "2.2.0+cu121")
    same = plan_for("h100x8-driver565-torch221-cu121", "torch", "2.2.1")
    assert (same.already, same.change) == (True, None)


def test_pytorch_ptx_needs_a_driver_that_runs_its_cuda_fully(tmp_path):
    # No PyPI torch wheel carries PTX (compat_matrix/torch.toml), but the schema allows it (`ptx`), e.g. in a
    # --matrix of one's own builds: here 2.4's cu124 with compute_90 PTX. An RTX 50-series GPU (12.0) has no
    # cubin in it; driver 535.104.05 runs CUDA 12.2, so CUDA 12.4 only through minor-version compatibility,
    # which cannot JIT-compile PTX of a newer CUDA (cuda-compat-guide): the build is ruled out, as for
    # TensorFlow (test_rule_edges_install).
    from gpudoctor.checks import Context
    from gpudoctor.install.environment import read_env
    from gpudoctor.planner.plan import Options, plan_install
    from tests.unit.test_install_plan import probe

    row = '{ tag = "cu124", cuda = "12.4", cudnn = "9.1.0.70", arch = ["5.0", "6.0", "7.0", "7.5", "8.0", "8.6", "9.0"]'
    bundled = (Path(__file__).parents[2] / "compat_matrix" / "torch.toml").read_text(encoding="utf-8")
    head, rest = bundled.split('\nversion = "2.4"\n', 1)  # rest: the 2.4 release and the releases after it
    assert row in rest.split("[[release]]", 1)[0]
    edited = head + '\nversion = "2.4"\n' + rest.replace(row, row + ', ptx = ["9.0"]', 1)
    (tmp_path / "torch.toml").write_text(edited, encoding="utf-8")
    host, facts = probe("docker-started-without-gpus")
    target = Target(gpu="12.0", driver="535.104.05")
    plan = plan_install(
        facts,
        Context(str(tmp_path / "torch.toml")),
        "torch",
        "2.4+cu124",
        env=read_env(host, facts),
        options=Options(target=target),
    )
    assert plan.chosen is None
    (ruled,) = plan.ruled_out
    assert [j.text for j in ruled.failures()] == [
        "no cubin for GPU 0 a GPU of compute capability 12.0 (sm_120, Blackwell): only compute_90 PTX, which the driver "
        "must JIT-compile, and a driver running CUDA 12.4 through minor-version compatibility cannot"
    ]


def test_the_driver_hint_names_the_smallest_upgrade_even_where_full_support_is_not_listed():
    # Windows, RTX 3080, `--driver 516.94` (CUDA 11.7), PyTorch 2.14 asked: none of its builds runs. cu126 opens
    # from 527.41 (the CUDA 12 minor-version floor on Windows), fully from 560.76 (CUDA 12.6 GA's Windows driver);
    # cu130 and cu132 need 580.88 (the CUDA 13 floor), and NVIDIA lists no Windows toolkit driver from CUDA 13.0
    # on (compat_matrix/cuda_driver.toml), so their full-support driver is unknown. The smallest upgrade is 527.41.
    plan = plan_for("windows-rtx3080-tensorflow215", "torch", "2.14", target=Target(driver="516.94"))
    assert plan.chosen is None
    assert plan.upgrade == ("a driver >= 527.41 (>= 560.76 for full CUDA 12.6 support) would open PyTorch 2.14 (cu126)",)


def test_a_plan_for_a_described_target_says_it_is_not_for_this_machine():
    # --gpu/--driver describe another machine than the probes saw: the plan says which options it followed.
    plan = plan_for("docker-started-without-gpus", "tensorflow", "2.21", target=Target(gpu="12.0", driver="535.104.05"))
    assert "planned for the target described by --gpu 12.0 --driver 535.104.05, not for what the probes saw here" in plan.notes


# --- --require ------------------------------------------------------------------------------------------------


def test_a_size_in_tib_is_a_power_of_1024(facts):  # noqa: F811 - the fixture
    # Each RTX 2070 has 8 GiB = 8/1024 TiB = 0.0078125 TiB exactly (a power of two: no rounding).
    assert met(facts, "gpu-memory>=0.0078125TiB")
    assert not met(facts, "gpu-memory>0.0078125TiB")


def test_a_condition_of_nothing_but_a_comma_is_a_syntax_error():
    # "torch," parses as a specifier set with no condition: refused, not read as "any torch installed".
    with pytest.raises(RequirementSyntaxError, match=r"^empty version condition in 'torch,'$"):
        parse_requirement("torch,")


def test_a_uuid_in_cuda_visible_devices_chooses_that_gpu(facts):  # noqa: F811 - the fixture
    # CUDA_VISIBLE_DEVICES may name a GPU by its UUID: only GPU 1 (...89cd) is visible, and at 8.6 it meets
    # cc>=8.0 alone, while GPU 0 (...89ab, 7.5) is not judged.
    upgraded = with_gpu(facts, 1, compute_capability="8.6")
    assert [g.uuid[-4:] for g in upgraded.driver.gpus] == ["89ab", "89cd"]
    env = {**upgraded.platform.env, "CUDA_VISIBLE_DEVICES": upgraded.driver.gpus[1].uuid}
    chosen = dataclasses.replace(upgraded, platform=dataclasses.replace(upgraded.platform, env=env))
    assert met(chosen, "cc>=8.0")
    assert met(chosen, "gpus==1")


def test_without_a_matrix_a_build_requirement_says_to_run_gpudoctor_install(facts, monkeypatch):  # noqa: F811
    # A gpudoctor without its compatibility matrix cannot choose the build: the finding still says what to do.
    import gpudoctor.checks.requirements as requirements

    monkeypatch.setattr(requirements, "load_matrix_or_none", lambda path: None)
    (outcome,) = evaluate(parse_requirements(["torch:cuda"]), facts)
    assert not outcome.met
    assert outcome.finding.remediation.summary == (
        "Install a CUDA build of PyTorch whose CUDA this driver runs and that has kernels for these GPUs. "
        "(No compatibility matrix here to choose the build: run `gpudoctor install torch`.)"
    )


# --- renderers --------------------------------------------------------------------------------------------------


def _doc(**facts):
    return {"exit_code": 1, "status": "findings", "findings": [], "facts": facts}


def test_prometheus_labels_the_python_executable_and_the_gpu_bus_id():
    doc = _doc(
        frameworks={"python": {"status": "found", "value": {"version": "3.11.7", "executable": "/usr/bin/python3"}}},
        driver={"gpus": [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-1", "pci_bus_id": "00000000:17:00.0"}]},
    )
    samples = render_prometheus(doc, timestamp=1.5e9).splitlines()
    assert 'gpudoctor_python_info{version="3.11.7",executable="/usr/bin/python3"} 1' in samples
    # No compute capability recorded: an empty label, the others as read.
    assert (
        'gpudoctor_gpu_info{gpu="0",name="NVIDIA H100 80GB HBM3",uuid="GPU-1",pci_bus_id="00000000:17:00.0",'
        'compute_capability=""} 1'
    ) in samples


def test_nfd_counts_each_warning_once():
    doc = _doc()
    doc["findings"] = [{"severity": "warning"}, {"severity": "warning"}, {"severity": "error"}, {"severity": "info"}]
    labels = nfd_labels(doc)
    assert (labels["errors"], labels["warnings"]) == ("1", "2")


def test_an_nfd_label_of_false_is_left_out_and_true_is_a_word():
    # A value recorded as false is no value for a label; True is shown as text (valid label characters).
    assert label_value(False) is None
    assert label_value(True) == "True"


def test_markdown_of_pasted_text_lists_what_was_read():
    report = report_of("p100-driver510-torch-cu121")
    pasted = {"blocks": [{"what": "nvidia-smi", "source": "issue.txt", "lines": [3, 20], "gave": "driver 510"}]}
    lines = render_markdown(report, ExitCode.FINDINGS, pasted=pasted).splitlines()
    at = lines.index("<details><summary>What gpudoctor read</summary>")
    # Data as code spans (render/markdown.text).
    assert lines[at : at + 5] == [
        "<details><summary>What gpudoctor read</summary>",
        "",
        "- `nvidia-smi` (`issue.txt`, lines 3-20): `driver 510`",
        "",
        "</details>",
    ]


def test_a_chart_label_with_a_line_feed_stays_one_line():
    # SVG <text> is one line: a line feed in a label is shown as the escape \x0a (gpudoctor.sanitize), never
    # passed on raw; quotes become entities so the text can also sit in an attribute.
    assert markup('GPU 0\n"A100"') == "GPU 0\\x0a&quot;A100&quot;"


# --- switch-cuda ------------------------------------------------------------------------------------------------


def test_a_failed_link_replacement_leaves_no_temporary_link(tmp_path):
    # /usr/local/cuda is a directory here (not a link): renaming the new link over it fails, the error is
    # raised, and the temporary link made beside it is removed (a later switch would otherwise find it).
    from gpudoctor.switch_cuda import TEMP_PREFIX, _replace_link

    target = tmp_path / "cuda-12.4"
    target.mkdir()
    link = tmp_path / "cuda"
    link.mkdir()
    (link / "version.json").write_text("{}")
    with pytest.raises(OSError):
        _replace_link(str(link), str(target))
    assert not [n for n in os.listdir(tmp_path) if n.startswith(TEMP_PREFIX)]
    assert sorted(os.listdir(tmp_path)) == ["cuda", "cuda-12.4"]
