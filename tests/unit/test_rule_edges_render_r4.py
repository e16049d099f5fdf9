"""What the renderers and switch-cuda print, at edges the suite left unguarded (round 4 of tools/mutate.py survivors,
docs/testing.md "Mutation testing"). Expected text worked out by hand from the rule each test names.

- Prometheus text format 0.0.4 (https://prometheus.io/docs/instrumenting/exposition_formats/): a sample value is a
  Go float, written `NaN`, `+Inf`, `-Inf` for the special values; every sample line is `name{labels} value`.
- Node Feature Discovery feature files (https://kubernetes-sigs.github.io/node-feature-discovery/stable/usage/customization-guide.html#feature-files):
  `# +expiry-time=` in RFC 3339, after which nfd-worker drops the labels; gpudoctor writes one hour after the check.
- GitHub Markdown code spans (https://github.github.com/gfm/#code-spans): a span is fenced by a backtick run longer
  than any inside it, padded with a space where the content starts or ends with a backtick.
"""

from __future__ import annotations

import dataclasses
import io
import os
from typing import Any, cast

import pytest

from gpudoctor import switch_cuda as sc
from gpudoctor.cmdline import Cmd
from gpudoctor.facts import Process
from gpudoctor.model import ExitCode
from gpudoctor.render.nfd import render_nfd
from gpudoctor.render.prometheus import MAX_LABEL_CHARS, label_value, render_prometheus
from gpudoctor.render.terminal import PROCESS_CHARS, _long_process_names, group_per_gpu
from gpudoctor.render.textconsole import terminal_width
from tests.unit.test_render_terminal import render
from tests.unit.test_rule_edges_survivors import report_of


def _samples(text: str) -> list[str]:
    """The sample lines of an exposition (HELP and TYPE comments left out)."""
    return [line for line in text.splitlines() if line and not line.startswith("#")]


# --- Prometheus --------------------------------------------------------------------------------------------


def test_prometheus_for_a_doctor_that_failed_says_why_and_nothing_about_the_node():
    # Exit status 3: the check made no report, so no finding or fact series; the message is the error's.
    doc = {"exit_code": 3, "error": {"message": "snapshot unreadable"}, "tool_version": "9.9"}
    assert _samples(render_prometheus(doc, timestamp=1.5e9)) == [
        "gpudoctor_check_success 0",
        "gpudoctor_check_timestamp_seconds 1500000000.0",
        "gpudoctor_exit_code 3",
        "gpudoctor_healthy 0",
        'gpudoctor_build_info{version="9.9"} 1',
        'gpudoctor_check_error_info{message="snapshot unreadable"} 1',
    ]


def test_prometheus_writes_the_special_float_values_as_the_text_format_spells_them():
    # A GPU whose readings are not finite numbers (a driver's garbage): each value as Go's float parser reads it.
    gpu = {"index": 0, "temperature_c": float("nan"), "power_draw_w": float("inf"), "memory_used_bytes": float("-inf")}
    doc = {"exit_code": 0, "tool_version": "9.9", "facts": {"driver": {"gpus": [gpu]}}}
    samples = _samples(render_prometheus(doc, timestamp=1.5e9, duration_s=0.25))
    assert samples == [
        "gpudoctor_check_success 1",
        "gpudoctor_check_timestamp_seconds 1500000000.0",
        "gpudoctor_check_duration_seconds 0.25",
        "gpudoctor_exit_code 0",
        "gpudoctor_healthy 1",
        'gpudoctor_build_info{version="9.9"} 1',
        'gpudoctor_check_info{node="",host_mode="",status=""} 1',
        'gpudoctor_findings{severity="error"} 0',
        'gpudoctor_findings{severity="info"} 0',
        'gpudoctor_findings{severity="warning"} 0',
        'gpudoctor_gpu_info{gpu="0",name="",uuid="",pci_bus_id="",compute_capability=""} 1',
        'gpudoctor_gpu_memory_used_bytes{gpu="0"} -Inf',
        'gpudoctor_gpu_temperature_celsius{gpu="0"} NaN',
        'gpudoctor_gpu_power_draw_watts{gpu="0"} +Inf',
    ]


def test_a_label_value_is_cut_at_its_limit_with_an_ellipsis_and_one_that_fits_is_whole():
    # MAX_LABEL_CHARS characters in all, the last one "…"; exactly MAX_LABEL_CHARS is not cut.
    assert MAX_LABEL_CHARS == 256
    assert label_value("x" * 256) == "x" * 256
    assert label_value("x" * 257) == "x" * 255 + "…"
    # The cut comes before the escaping: a quote at the end is still escaped, never half an escape left.
    assert label_value("x" * 255 + '"') == "x" * 255 + '\\"'


# --- NFD ---------------------------------------------------------------------------------------------------


def test_nfd_labels_expire_one_hour_after_the_check():
    # 1.7e9 s is 2023-11-14T22:13:20Z; NFD drops the labels an hour later unless gpudoctor writes the file again.
    text = render_nfd({"exit_code": 0, "findings": []}, timestamp=1.7e9)
    assert text.splitlines()[1] == "# +expiry-time=2023-11-14T23:13:20Z"


# --- Markdown: the questions for the reporter --------------------------------------------------------------


def test_markdown_asks_for_each_command_as_a_code_span_no_backtick_can_close():
    from gpudoctor.pasted.ask import Ask
    from gpudoctor.render.markdown import render_markdown

    asks = [
        Ask(Cmd(("nvidia-smi",)), "the driver's version"),
        Ask(Cmd(("echo", "a`b")), "a backtick inside"),  # one backtick inside: a fence of two
        Ask(Cmd(("echo", "a``b")), "two backticks"),  # a run of two: a fence of three
    ]
    lines = render_markdown(report_of("p100-driver510-torch-cu121"), ExitCode.FINDINGS, pasted={}, asks=asks).splitlines()
    at = lines.index("#### Please also post the output of")
    assert lines[at + 2 : at + 5] == [
        "- `nvidia-smi`: `the driver's version`",
        "- ``echo 'a`b'``: `a backtick inside`",
        "- ```echo 'a``b'```: `two backticks`",
    ]


def test_markdown_lists_only_the_asks_no_plan_step_prints():
    # A step that carries a question (an undecided error's deciders) prints it; the list does not repeat it.
    from gpudoctor.model import Severity
    from gpudoctor.pasted.ask import Ask
    from gpudoctor.planner.prescribe import Prescription, Step
    from gpudoctor.render.markdown import render_markdown

    smi, pip_list = Cmd(("nvidia-smi",)), Cmd(("python3", "-m", "pip", "list"))
    plan = Prescription((Step("driver", ("Upgrade the driver.",), (smi,), ("framework-driver-too-old",), Severity.ERROR),))
    asks = [Ask(smi, "the driver's version"), Ask(pip_list, "the frameworks installed")]
    lines = render_markdown(
        report_of("p100-driver510-torch-cu121"), ExitCode.FINDINGS, pasted={}, asks=asks, plan=plan
    ).splitlines()
    at = lines.index("#### Please also post the output of")
    assert lines[at + 2 :][:2] == ["- `python3 -m pip list`: `the frameworks installed`", ""]
    assert sum(line.strip() == "nvidia-smi" for line in lines) == 1 and not any("`nvidia-smi`" in line for line in lines)


# --- the terminal ------------------------------------------------------------------------------------------


def test_a_process_command_line_is_shortened_only_when_longer_than_the_limit():
    # PROCESS_CHARS (60) characters stay whole in prose; one more is cut to 59 and "…" (60 in all).
    facts = report_of("gt1030-desktop-memory-held").facts
    fits, long = "p" * PROCESS_CHARS, "q" * (PROCESS_CHARS + 1)
    gpu = dataclasses.replace(facts.driver.gpus[0], processes=(Process(1, fits, 1), Process(2, long, 1), Process(3, None, 1)))
    facts = dataclasses.replace(facts, driver=dataclasses.replace(facts.driver, gpus=(gpu,)))
    assert PROCESS_CHARS == 60
    assert _long_process_names(facts) == {long: "q" * 59 + "…"}


def test_an_area_with_nothing_to_say_and_no_finding_gets_no_line():
    # No GPU: there is no health or memory to summarise, and nothing found there, so neither area is printed;
    # the areas that were looked at are.
    lines = render("ci-docker-cuda13-no-gpu").splitlines()
    titles = [line.split(":")[0] for line in lines if line[:2] in ("✓ ", "✗ ", "! ", "i ", "- ")]
    assert not any(t.endswith(("GPU health", "GPU memory")) for t in titles), titles
    assert any(t.endswith("NVIDIA driver") for t in titles), titles


def test_per_gpu_findings_merged_are_told_with_the_first_gpus_fix():
    # Two GPUs, same finding, same fix summary, the fix in the same step of the plan: one sentence ("GPUs 0-1"),
    # the first finding's fields standing for both (its commands name GPU 0 and its bus), every evidence kept.
    # Without a step the commands must be the same but for the index: these name each GPU's PCI bus, so two.
    report = report_of("rtx2070x2-cuda-visible-devices-wrong")
    pair = [f for f in report.findings if f.title.startswith(("GPU 0's PCIe link", "GPU 1's PCIe link"))]
    assert len(pair) == 2 and pair[0].remediation and pair[0].remediation.commands
    assert [i for _, i in group_per_gpu(pair)] == [[], []]
    ((merged, indices),) = group_per_gpu(pair, lambda f: 1)
    assert indices == [0, 1]
    assert merged.title.startswith("GPUs 0-1: PCIe link")
    assert merged.remediation == pair[0].remediation
    assert merged.evidence == pair[0].evidence + pair[1].evidence


# --- the console -------------------------------------------------------------------------------------------


def test_terminal_width_asks_stdin_first_then_stdout_then_stderr(monkeypatch):
    # rich's order: COLUMNS, else the size of fd 0, 1, 2 in turn (the first that is a terminal), else 80.
    sizes = {0: 101, 1: 102, 2: 103}

    def size(fd):
        if fd not in sizes:
            raise OSError("not a terminal")
        return os.terminal_size((sizes[fd], 24))

    monkeypatch.setattr(os, "get_terminal_size", size)
    assert terminal_width({}) == 101
    del sizes[0]
    assert terminal_width({}) == 102
    del sizes[1]
    assert terminal_width({}) == 103
    del sizes[2]
    assert terminal_width({}) == 80
    assert terminal_width({"COLUMNS": "55"}) == 55
    assert terminal_width({"COLUMNS": "0"}) == 80  # not a width: the next source


# --- switch-cuda -------------------------------------------------------------------------------------------


def test_root_refusing_a_toolkit_others_can_change_says_every_command_with_sudo(tmp_path, monkeypatch):
    from tests.unit.test_switch_cuda import host_for, make_machine

    root = make_machine(tmp_path)
    os.chmod(root / "usr" / "local" / "cuda-11.8", 0o777)
    host = host_for(root)
    plan = sc.plan_switch(sc_facts(host), "11.8", sc.SYSTEM, is_root=True)
    monkeypatch.setattr("gpudoctor.trust.running_as_root", lambda: True)
    refused = sc.refuse_untrusted_target(plan, host)
    # Both repairs change a tree root owns: each is printed with sudo, as the user will type them.
    assert refused.manual == (
        "Make it root's own, then rerun:",
        "  sudo chown -R root:root /usr/local/cuda-11.8",
        "  sudo chmod -R go-w /usr/local/cuda-11.8",
        "Or, for this shell only (no root):",
        '  eval "$(gpudoctor switch-cuda 11.8 --shell)"',
    )


def sc_facts(host):
    from gpudoctor.probes import ProbeOptions, run_probes

    return run_probes(host, ProbeOptions())


def test_prometheus_of_a_whole_machine_with_requirements_is_every_series_once():
    # The P100 with driver 510 and PyTorch cu121 (tests/machines/p100-driver510-torch-cu121): one error finding, the
    # driver, Python, PyTorch, the cuDNN wheel and the GPU's readings. Requirements: `gpus>=1` stated twice, met once
    # and unmet once, is one series at 0 (unmet wins); the counts add each requirement stated.
    from gpudoctor.render.json_report import report_document

    doc = report_document(report_of("p100-driver510-torch-cu121"), ExitCode.FINDINGS)
    doc["tool_version"] = "9.9"
    doc["node"] = "node-7"
    doc["requirements"] = [
        {"spec": "gpus>=1", "kind": "gpus", "met": True},
        {"spec": "gpus>=1", "kind": "gpus", "met": False},
        {"spec": "driver>=500", "kind": "driver", "met": True},
    ]
    assert _samples(render_prometheus(doc, timestamp=1.5e9)) == [
        "gpudoctor_check_success 1",
        "gpudoctor_check_timestamp_seconds 1500000000.0",
        "gpudoctor_exit_code 1",
        "gpudoctor_healthy 0",
        'gpudoctor_build_info{version="9.9"} 1',
        'gpudoctor_check_info{node="node-7",host_mode="replay",status="error"} 1',
        'gpudoctor_findings{severity="error"} 1',
        'gpudoctor_findings{severity="info"} 0',
        'gpudoctor_findings{severity="warning"} 0',
        'gpudoctor_finding{code="framework-driver-too-old",severity="error",area="frameworks",gpu=""} 1',
        'gpudoctor_requirement_met{requirement="driver>=500",kind="driver"} 1',
        'gpudoctor_requirement_met{requirement="gpus>=1",kind="gpus"} 0',
        'gpudoctor_requirements{state="met"} 2',
        'gpudoctor_requirements{state="unmet"} 1',
        'gpudoctor_driver_info{version="510.47.03",cuda_version="11.6"} 1',
        'gpudoctor_python_info{version="3.10.12",executable="/usr/bin/python3"} 1',
        'gpudoctor_framework_info{framework="torch",version="2.2.1+cu121",cuda="12.1",rocm=""} 1',
        'gpudoctor_cudnn_info{version="8.9.2.26",kind="wheel",path="dist:nvidia-cudnn-cu12"} 1',
        'gpudoctor_gpu_info{gpu="0",name="Tesla P100-PCIE-16GB",uuid="GPU-d3da8716-eaab-75db-efc1-60e88e1cd55e",'
        'pci_bus_id="00000000:00:04.0",compute_capability=""} 1',
        'gpudoctor_gpu_memory_total_bytes{gpu="0"} 17179869184',
        'gpudoctor_gpu_memory_used_bytes{gpu="0"} 0',
        'gpudoctor_gpu_temperature_celsius{gpu="0"} 38',
        'gpudoctor_gpu_power_draw_watts{gpu="0"} 26.16',
        'gpudoctor_gpu_pcie_link_width{gpu="0"} 16',
        'gpudoctor_gpu_pcie_link_width_max{gpu="0"} 16',
        'gpudoctor_gpu_pcie_link_generation{gpu="0"} 3',
        'gpudoctor_gpu_pcie_link_generation_max{gpu="0"} 3',
        'gpudoctor_gpu_ecc_uncorrected_volatile{gpu="0"} 0',
        'gpudoctor_gpu_lost{gpu="0"} 0',
    ]


def test_prometheus_counts_a_finding_said_twice_of_one_gpu_and_names_the_gpu():
    # One series per label set: the same code for the same GPU twice is one series of value 2; a title naming two
    # GPUs belongs to neither (gpu=""); a finding without severity counts as info.
    findings = [
        {"code": "gpu-ecc-errors", "severity": "error", "area": "health", "title": "GPU 3 reports memory errors"},
        {"code": "gpu-ecc-errors", "severity": "error", "area": "health", "title": "GPU 3 reports memory errors again"},
        {"code": "pcie-link-degraded", "severity": "warning", "area": "health", "title": "GPU 0 and GPU 1 run at x8"},
        {"code": "odd", "area": "doctor", "title": "no GPU here"},
        "not a finding",
    ]
    samples = _samples(render_prometheus({"exit_code": 1, "findings": findings}, timestamp=0))
    assert [s for s in samples if s.startswith("gpudoctor_finding")] == [
        'gpudoctor_findings{severity="error"} 2',
        'gpudoctor_findings{severity="info"} 1',
        'gpudoctor_findings{severity="warning"} 1',
        'gpudoctor_finding{code="gpu-ecc-errors",severity="error",area="health",gpu="3"} 2',
        'gpudoctor_finding{code="odd",severity="info",area="doctor",gpu=""} 1',
        'gpudoctor_finding{code="pcie-link-degraded",severity="warning",area="health",gpu=""} 1',
    ]


# --- NPD's status ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("doc", "status"),
    [
        ({"exit_code": 0}, 0),
        ({"exit_code": 1}, 1),
        ({"exit_code": 3}, 2),  # the doctor failed, even without an error object
        ({"exit_code": 2}, 2),  # a usage error: nothing was checked
        ({"exit_code": 1, "error": {"message": "x"}}, 2),  # an error object: unknown, whatever the code
        ({"exit_code": 0, "error": {"message": "x"}}, 2),
        ({}, 2),
    ],
)
def test_npd_status_is_ok_or_problem_only_for_a_check_that_ran(doc, status):
    from gpudoctor.render.nfd import npd_status

    assert npd_status(doc) == status


# --- JUnit: requirements ------------------------------------------------------------------------------------


def test_junit_requirement_cases_pass_fail_or_say_they_were_ignored():
    import xml.etree.ElementTree as ET

    from gpudoctor.checks.requirements import evaluate, parse_requirements
    from gpudoctor.render.junit import render_junit

    # One GPU: `gpus>=2` is unmet, `gpus>=1` met. The unmet one fails the report when its finding is in the report,
    # and only shows as ignored when --ignore requirement-unmet dropped the finding.
    report = report_of("p100-driver510-torch-cu121")
    outcomes = evaluate(parse_requirements(["gpus>=2", "gpus>=1"]), report.facts, report.findings)

    def cases(rep):
        root = ET.fromstring(render_junit(rep, outcomes, ExitCode.FINDINGS))
        (suite,) = [s for s in root.iter("testsuite") if s.get("name") == "gpudoctor.checks.requirements"]
        got = [(tc.get("name"), [(c.tag, c.get("message"), c.text) for c in tc]) for tc in suite.iter("testcase")]
        return got, suite.get("failures"), root.get("failures")

    ignored, failures, _ = cases(report)
    assert ignored == [
        ("gpus>=2", [("system-out", None, "not met (ignored): 1 GPU(s)")]),
        ("gpus>=1", [("system-out", None, "met: 1 GPU(s)")]),
    ]
    assert failures == "0"
    kept = dataclasses.replace(report, findings=[*report.findings, outcomes[0].finding])
    failed, failures, total = cases(kept)
    assert failed[0][1][0][:2] == ("failure", "[requirement-unmet] gpus>=2: 1 GPU(s)")
    assert failed[1] == ("gpus>=1", [("system-out", None, "met: 1 GPU(s)")])
    # The framework finding fails its check's case, the requirement its own: two in all.
    assert (failures, total) == ("1", "2")


# --- the terminal: area summaries ---------------------------------------------------------------------------


def test_area_summaries_say_what_was_seen_in_each_area():
    from gpudoctor.render.terminal import area_summaries

    # A container started without GPUs: the device on the PCI bus, no driver, torch, Docker named.
    assert area_summaries(report_of("docker-started-without-gpus").facts) == {
        "gpu": "1 NVIDIA device(s) on the PCI bus",
        "driver": "not loaded",
        "platform": "Ubuntu 22.04.4 LTS, in docker",
        "toolkit": "none found",
        "cudnn": "8.9.2.26",
        "frameworks": "torch 2.2.1+cu121 (CUDA 12.1) in /usr/bin/python3 (the snapshot)",
    }
    # Two toolkits, neither the one /usr/local/cuda names (so neither "(active)"); one GPU with its link and memory.
    assert area_summaries(report_of("rtx4090-toolkit-paths-disagree").facts) == {
        "gpu": "1 × NVIDIA GeForce RTX 4090",
        "driver": "535.86.05 (supports CUDA 12.2)",
        "platform": "Ubuntu 22.04.4 LTS",
        "toolkit": "11.8.89 at /usr/local/cuda-11.8, 12.5.40 at /usr/local/cuda-12.5",
        "cudnn": "8.9.2.26",
        "frameworks": "torch 2.2.1+cu121 (CUDA 12.1) in /usr/bin/python3 (the snapshot)",
        "health": "GPU 0: PCIe Gen1 x16",
        "memory": "GPU 0: 0.0 GiB of 24.0 GiB used",
    }
    # The one toolkit is the one the link names: "(active)".
    assert area_summaries(report_of("quadro-p2000-driver525-cuda13-toolkit").facts)["toolkit"] == (
        "13.0.88 at /usr/local/cuda-13.0 (active)"
    )
    # WSL 1 and a GPU fallen off the bus: counted, not named.
    assert area_summaries(report_of("wsl1").facts)["platform"] == "Ubuntu 22.04.4 LTS, WSL1"
    assert area_summaries(report_of("h100x2-gpu-fallen-off-bus").facts)["gpu"] == "2 × NVIDIA H100 80GB HBM3 (1 lost)"
    # Models of two kinds (the recorded Windows machine's GeForce beside a P100 in TCC): each counted by its name, not
    # "2 ×" before both names as if each were two.
    assert area_summaries(report_of("windows-p100-tcc-geforce-wddm-wsl").facts)["gpu"] == (
        "1 × NVIDIA GeForce ..., 1 × Tesla P100-PCIE..."
    )


def test_a_loaded_module_whose_version_cannot_be_read_is_said_so():
    from gpudoctor.render.terminal import area_summaries

    # The nouveau machine has no NVIDIA module; with one loaded but /proc/driver/nvidia/version unread and no NVML,
    # the driver line says the module is there without a version (never "not loaded").
    facts = report_of("rtx3080-nouveau").facts
    assert area_summaries(facts)["driver"] == "not loaded"
    loaded = dataclasses.replace(facts, kernel=dataclasses.replace(facts.kernel, nvidia_loaded=True))
    assert area_summaries(loaded)["driver"] == "nvidia module loaded; its version could not be read"


def test_findings_that_name_a_gpu_only_in_their_detail_are_not_merged():
    # Merging says "GPUs 0-1" in the title; a title that names no GPU cannot say which, so each stays whole.
    base = report_of("rtx2070x2-cuda-visible-devices-wrong").findings[0]
    a = dataclasses.replace(base, title="Something is off", detail="Seen on GPU 0.")
    b = dataclasses.replace(base, title="Something is off", detail="Seen on GPU 1.")
    assert group_per_gpu([a, b], lambda f: 1) == [(a, []), (b, [])]


# --- the console on Windows ---------------------------------------------------------------------------------


def test_windows_console_escape_processing_is_a_bool_of_what_windows_answered(monkeypatch):
    # _windows_vt turns on ENABLE_VIRTUAL_TERMINAL_PROCESSING (0x0004) over the console's mode; colour only when
    # SetConsoleMode says it worked; False (not colour) where GetConsoleMode fails (not a console).
    import ctypes
    import sys
    import types

    from gpudoctor.render.textconsole import _windows_vt

    calls = []

    class Kernel32:
        def __init__(self, get_ok, set_ok):
            self.get_ok, self.set_ok = get_ok, set_ok

        def GetConsoleMode(self, handle, mode_ref):  # noqa: N802 - the Win32 name
            ctypes.cast(mode_ref, ctypes.POINTER(ctypes.c_uint32)).contents.value = 0x0002
            return self.get_ok

        def SetConsoleMode(self, handle, mode):  # noqa: N802
            calls.append(mode)
            return self.set_ok

    msvcrt = types.ModuleType("msvcrt")
    msvcrt.get_osfhandle = lambda fd: 42  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "msvcrt", msvcrt)
    out = io.StringIO()
    out.fileno = lambda: 1  # type: ignore[method-assign]
    for get_ok, set_ok, want in ((1, 1, True), (1, 0, False), (0, 1, False)):
        monkeypatch.setattr(ctypes, "windll", types.SimpleNamespace(kernel32=Kernel32(get_ok, set_ok)), raising=False)
        assert _windows_vt(out) is want
    assert calls == [0x0006, 0x0006]  # the mode it had, plus escape processing; never set where it could not be read


# --- switch-cuda: what it prints ---------------------------------------------------------------------------


def test_install_lines_for_a_packaged_version_are_the_repository_conda_and_the_pip_note(tmp_path):
    from tests.unit.test_switch_cuda import UBUNTU_2204, _on, facts_for, make_machine

    facts = _on(facts_for(make_machine(tmp_path)), UBUNTU_2204)
    assert sc.install_lines(facts, "12.4") == (
        "Install it:",
        "  wget https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2204/x86_64/cuda-keyring_1.1-1_all.deb",
        "  # adds NVIDIA\u2019s CUDA repository and its signing key",
        "  sudo dpkg -i cuda-keyring_1.1-1_all.deb",
        "  sudo apt-get update",
        "  # NVIDIA\u2019s ubuntu2204 repository",
        "  sudo apt-get install -y cuda-toolkit-12-4",
        "Or into a conda environment:",
        "  conda install -c conda-forge cuda-toolkit cuda-version=12.4",
        # pip's CUDA wheels are no toolkit switch-cuda can point at until assembled: said last, always.
        "(pip's nvidia-cuda-nvcc and nvidia-cuda-runtime wheels put nvcc and the runtime inside a Python environment; "
        "they make a toolkit for switch-cuda only once assembled into one directory, such as /usr/local/cuda-X.Y.)",
    )


_HEAD = "CUDA toolkits (* active: the one nvcc on PATH runs, else /usr/local/cuda, else CUDA_HOME)"


def test_list_marks_the_active_toolkit_and_what_names_each(tmp_path):
    from tests.unit.test_switch_cuda import facts_for, make_machine

    # nvcc on PATH is 11.8's (the active one), /usr/local/cuda names 12.8, CUDA_HOME and LD_LIBRARY_PATH name 13.0.
    env = {
        "PATH": "/usr/local/cuda-11.8/bin:/usr/bin",
        "CUDA_HOME": "/usr/local/cuda-13.0",
        "LD_LIBRARY_PATH": "/usr/local/cuda-13.0/lib64",
    }
    assert sc.render_list(facts_for(make_machine(tmp_path), env)) == "\n".join(
        [
            _HEAD,
            "* 11.8.89  /usr/local/cuda-11.8  via nvcc on PATH (/usr/local/cuda-11.8/bin/nvcc)",
            "  12.8.2   /usr/local/cuda-12.8  via /usr/local/cuda",
            "  13.0.88  /usr/local/cuda-13.0  via CUDA_HOME, LD_LIBRARY_PATH",
            "/usr/local/cuda -> /usr/local/cuda-12.8",
            "",
        ]
    )


def test_list_says_what_usr_local_cuda_is_when_it_names_no_toolkit(tmp_path):
    from tests.unit.test_switch_cuda import facts_for, make_machine

    rows = ["  11.8.89  /usr/local/cuda-11.8", "  12.8.2   /usr/local/cuda-12.8", "  13.0.88  /usr/local/cuda-13.0"]
    missing = make_machine(tmp_path / "missing", link_to=None)
    assert sc.render_list(facts_for(missing)).splitlines() == [_HEAD, *rows, "/usr/local/cuda does not exist"]
    # A link whose toolkit was uninstalled: it names nothing, and nothing is active.
    dangling = make_machine(tmp_path / "dangling", link_to=None)
    (dangling / "usr/local/cuda").symlink_to(dangling / "usr/local/cuda-11.0")
    assert sc.render_list(facts_for(dangling)).splitlines() == [
        _HEAD,
        *rows,
        "/usr/local/cuda -> /usr/local/cuda-11.0 (dangling: it names nothing)",
    ]


def test_list_follows_update_alternatives_to_the_toolkit(tmp_path):
    from tests.unit.test_rule_edges_switch_cuda import _alternatives_plan

    root, plan = _alternatives_plan(tmp_path)
    from tests.unit.test_switch_cuda import facts_for

    lines = sc.render_list(facts_for(root)).splitlines()
    assert "* 12.8.2   /usr/local/cuda-12.8  via /usr/local/cuda (update-alternatives)" in lines
    assert lines[-1] == "/usr/local/cuda -> /etc/alternatives/cuda -> /usr/local/cuda-12.8"


def test_root_never_points_the_link_at_a_toolkit_others_can_change(tmp_path, monkeypatch):
    from gpudoctor.errors import UnsafeOperation
    from tests.unit.test_switch_cuda import facts_for, link_of, make_machine

    # Even a plan made without refuse_untrusted_target (a caller that forgot it): apply_switch itself refuses, as root,
    # and the link still names what it named.
    root = make_machine(tmp_path)
    os.chmod(root / "usr" / "local" / "cuda-11.8", 0o777)
    plan = sc.plan_switch(facts_for(root), "11.8", sc.SYSTEM, is_root=True)
    assert (plan.method, plan.refusal) == ("rename", None)
    monkeypatch.setattr("gpudoctor.trust.running_as_root", lambda: True)
    with pytest.raises(UnsafeOperation) as err:
        sc.apply_switch(plan, str(root))
    assert err.value.message.startswith(
        "not pointing /usr/local/cuda at /usr/local/cuda-11.8: users other than root can change it ("
    )
    assert link_of(root) == str(root / "usr/local/cuda-12.8")


def test_a_failed_alternatives_switch_points_at_its_own_display_command(tmp_path, monkeypatch):
    from gpudoctor.errors import GpudoctorError
    from tests.unit.test_rule_edges_switch_cuda import _alternatives_plan

    root, plan = _alternatives_plan(tmp_path, "cuda-12")
    fake = tmp_path / "fakebin"
    fake.mkdir()
    (fake / "update-alternatives").write_text("#!/bin/sh\nexit 2\n")
    (fake / "update-alternatives").chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake}:{os.environ.get('PATH', '')}")
    with pytest.raises(GpudoctorError) as err:
        sc.apply_switch(plan, str(root))
    assert err.value.hint == "see `update-alternatives --display cuda-12`"


# --- GitHub Actions ----------------------------------------------------------------------------------------


def test_github_log_is_one_command_per_finding_then_met_requirements_then_the_verdict():
    from gpudoctor.checks.requirements import evaluate, parse_requirements
    from gpudoctor.render.github import render_github

    # Workflow commands carry their message escaped (LF as %0A); a met requirement is a plain log line, an unmet one
    # is not repeated there (its finding says it); the verdict counts both.
    report = report_of("p100-driver510-torch-cu121")
    outcomes = evaluate(parse_requirements(["gpus>=1", "driver>=999"]), report.facts, report.findings)
    lines = render_github(report, outcomes, ExitCode.FINDINGS).splitlines()
    assert len(lines) == 3
    assert lines[0].startswith(
        "::error title=framework-driver-too-old::PyTorch 2.2.1+cu121 needs CUDA 12.1, which driver 510.47.03 cannot run"
        "%0AThe driver supports CUDA up to 11.6;"
    )
    assert lines[0].endswith(
        "%0A  /usr/bin/python3 -m pip install torch==2.2.1+cu118 --index-url https://download.pytorch.org/whl/cu118"
        "%0A  /usr/bin/python3 -m pip uninstall -y nvidia-cublas-cu12 nvidia-cuda-runtime-cu12 nvidia-cudnn-cu12"
        "%0A  /usr/bin/python3 -m pip install --force-reinstall torch==2.2.1+cu118 --index-url "
        "https://download.pytorch.org/whl/cu118"
    )
    assert "%0AFix: Install a build this driver runs" in lines[0]
    assert lines[1:] == [
        "gpudoctor: requirement met: gpus>=1 (1 GPU(s))",
        "gpudoctor: 1 error(s), 0 warning(s), 0 note(s); 1 of 2 requirement(s) met; exit status 1",
    ]
    # No requirement stated: none counted.
    assert render_github(report, (), ExitCode.FINDINGS).splitlines()[-1] == (
        "gpudoctor: 1 error(s), 0 warning(s), 0 note(s); exit status 1"
    )


def test_github_error_is_one_error_command_with_the_hint_after_the_message():
    from gpudoctor.render.github import render_github_error

    assert render_github_error("boom: a\nb", "try x") == "::error title=gpudoctor-failed::boom: a%0Ab%0Ahint: try x\n"
    assert render_github_error("boom", None) == "::error title=gpudoctor-failed::boom\n"


def test_github_summary_of_a_healthy_node_and_of_notes_below_fail_on():
    from gpudoctor.model import Severity
    from gpudoctor.render.github import render_github_summary

    assert render_github_summary(report_of("h100x8-driver565-torch221-cu121"), (), ExitCode.OK) == "\n".join(
        [
            "## gpudoctor check: ✅ healthy",
            "",
            "`GPU 8 × NVIDIA H100 80GB HBM3; driver 565.57.01 (CUDA 12.7); torch 2.2.1+cu121 (CUDA 12.1)`",
            "",
            "Exit status 0 (fails on warning and above). Details of any code: `gpudoctor explain CODE`.",
            "",
        ]
    )
    # Two notes, nothing at or above --fail-on: a warning sign, not a cross; each note a table row.
    report = report_of("rtx2070x2-cuda-visible-devices-wrong")
    notes = dataclasses.replace(report, findings=[f for f in report.findings if f.severity == Severity.INFO])
    lines = render_github_summary(notes, (), ExitCode.OK, fail_on=Severity.ERROR).splitlines()
    assert lines[0] == "## gpudoctor check: ⚠️ 0 error(s), 0 warning(s), 2 note(s)"
    assert lines[4:8] == ["### Findings", "", "| Severity | Code | Finding | Fix |", "|---|---|---|---|"]
    assert lines[8].startswith(
        "| info | `pcie-link-degraded` | `GPU 0's PCIe link runs below its maximum while idle: width x8 of x16` | "
    )
    assert lines[-1] == "Exit status 0 (fails on error and above). Details of any code: `gpudoctor explain CODE`."


def test_github_summary_requirements_table_and_node():
    from gpudoctor.checks.requirements import evaluate, parse_requirements
    from gpudoctor.render.github import render_github_summary

    report = report_of("rtx2070x2-cuda-visible-devices-wrong")
    outcomes = evaluate(parse_requirements(["gpus>=2", "driver>=500"]), report.facts, report.findings)
    lines = render_github_summary(report, outcomes, ExitCode.FINDINGS, node="n|1").splitlines()
    # The node outside a table: a code span whose `|` needs no escape. In the table, data is a code span, `|` escaped.
    assert lines[:11] == [
        "## gpudoctor check: ❌ 1 error(s), 0 warning(s), 2 note(s)",
        "",
        "Node `n|1`: `GPU 2 × NVIDIA GeForce RTX 2070; driver 590.44.01 (CUDA 13.1)`",
        "",
        "### Requirements",
        "",
        "| | Requirement | Found |",
        "|---|---|---|",
        "| ❌ | `gpus>=2` | `0 GPU(s) (CUDA_VISIBLE_DEVICES=2,0 of 2)` |",
        "| ✅ | `driver>=500` | `driver 590.44.01` |",
        "",
    ]
    assert lines[15] == (
        "| error | `cuda-visible-devices-hides-all` | `CUDA_VISIBLE_DEVICES hides every GPU` | ``List GPUs that exist "
        "(indices, or UUIDs from `nvidia-smi -L`), where it is set (a command's prefix or a job script wins over the "
        "shell): here 0.``<br>`nvidia-smi -L`<br>`export CUDA_VISIBLE_DEVICES=0` |"
    )


@pytest.mark.parametrize(
    ("slug", "line"),
    [
        ("rtx3060-tf211-cuda12-only", "GPU 1 × NVIDIA GeForce RTX 3060; driver 570.124.04 (CUDA 12.8); tensorflow 2.11.0"),
        ("ci-docker-cuda13-no-gpu", "no GPU seen"),
    ],
)
def test_github_machine_line_names_gpus_driver_and_frameworks(slug, line):
    from gpudoctor.render.github import machine_line

    assert machine_line(report_of(slug)) == line


# --- a finding in the terminal -----------------------------------------------------------------------------


def _finding_text(f, width: int, verbose: bool, step) -> list[str]:
    from gpudoctor.render.terminal import render_finding
    from gpudoctor.render.textconsole import TextConsole

    out = io.StringIO()
    render_finding(TextConsole(out, width=width, styled=False), f, verbose, step=step)
    return out.getvalue().splitlines()


def test_a_verbose_finding_at_40_columns_hangs_every_continuation_two_columns_in():
    # Title under its first word (the glyph and a space); detail lines at the inner indent, not hung; evidence,
    # sources and the fix hang 2 columns deeper; the step of the plan closes the Fix line.
    f = report_of("p100-driver510-torch-cu121").findings[0]
    assert _finding_text(f, 40, True, 2) == [
        "    ✗ PyTorch 2.2.1+cu121 needs CUDA",
        "      12.1, which driver 510.47.03",
        "      cannot run",
        "      (framework-driver-too-old)",
        "      The driver supports CUDA up to",
        "      11.6; a CUDA 12.1 runtime needs",
        "      driver >= 525.60.13. The framework",
        "      fails with 'CUDA driver version is",
        "      insufficient for CUDA runtime",
        "      version' or reports no GPU.",
        "      evidence:",
        "        file:/usr/lib/python3/dist-packa",
        "        ges/torch/version.py: PyTorch",
        "        2.2.1+cu121: CUDA 12.1",
        "      evidence: cmd:nvidia-smi: driver",
        "        510.47.03",
        "      sources: cuda-release-notes,",
        "        cuda-compat-guide",
        "      Fix: Install a build this driver",
        "        runs, or upgrade the driver",
        "        (below). PyTorch 2.2 (cu118)",
        "        fits this machine: reinstall",
        "        torch 2.2.1+cu121 (same version)",
        "        as 2.2.1+cu118. Then remove the",
        "        CUDA 12 wheels the old build",
        "        brought (they would stay beside",
        "        the new build's, in the same",
        "        nvidia/ directory) and",
        "        force-reinstall the new build,",
        "        which puts back the files both",
        "        majors share. (step 2 of the",
        "        plan)",
    ]


def test_a_finding_outside_the_plan_prints_its_own_commands_and_no_step():
    # No step (a view without a plan): the fix's commands follow it, whole and unwrapped, 4 columns in from the
    # finding's text; then the alternative, labelled, with its commands. No "(step ... of the plan)".
    f = report_of("p100-driver510-torch-cu121").findings[0]
    assert _finding_text(f, 100, False, None) == [
        "    ✗ PyTorch 2.2.1+cu121 needs CUDA 12.1, which driver 510.47.03 cannot run",
        "      (framework-driver-too-old)",
        "      The driver supports CUDA up to 11.6; a CUDA 12.1 runtime needs driver >= 525.60.13. The",
        "      framework fails with 'CUDA driver version is insufficient for CUDA runtime version' or reports",
        "      no GPU.",
        "      Fix: Install a build this driver runs, or upgrade the driver (below). PyTorch 2.2 (cu118)",
        "        fits this machine: reinstall torch 2.2.1+cu121 (same version) as 2.2.1+cu118. Then remove",
        "        the CUDA 12 wheels the old build brought (they would stay beside the new build's, in the",
        "        same nvidia/ directory) and force-reinstall the new build, which puts back the files both",
        "        majors share.",
        "        /usr/bin/python3 -m pip install torch==2.2.1+cu118 --index-url https://download.pytorch.org/whl/cu118",
        "        /usr/bin/python3 -m pip uninstall -y nvidia-cublas-cu12 nvidia-cuda-runtime-cu12 nvidia-cudnn-cu12",
        "        /usr/bin/python3 -m pip install --force-reinstall torch==2.2.1+cu118 --index-url https://download.pytorch.org/whl/cu118",
        "      Or instead: Upgrade the NVIDIA driver to >= 525.60.13, then reboot (the branch the",
        "        distribution recommends; check that it is at least that).",
        "        sudo apt-get update",
        "        # the branch Ubuntu recommends for this GPU",
        "        sudo ubuntu-drivers install",
        "        sudo reboot",
    ]


def test_a_fix_with_no_commands_points_at_no_step():
    # A step number says where the fix's commands are; a fix of prose alone has none to point at.
    f = report_of("p100-driver510-torch-cu121").findings[0]
    assert f.remediation is not None
    prose = dataclasses.replace(f, remediation=dataclasses.replace(f.remediation, commands=()))
    assert _finding_text(prose, 200, False, 3)[-2:] == [
        "      Fix: Install a build this driver runs, or upgrade the driver (below). PyTorch 2.2 (cu118) fits this "
        "machine: reinstall torch 2.2.1+cu121 (same version) as 2.2.1+cu118. Then remove the CUDA 12",
        "        wheels the old build brought (they would stay beside the new build's, in the same nvidia/ directory) "
        "and force-reinstall the new build, which puts back the files both majors share.",
    ]


# --- the console's cells and styles ------------------------------------------------------------------------


def test_control_characters_take_no_cell_and_printable_ones_one():
    from gpudoctor.render.textconsole import cells, char_cells

    # C0 controls (but NUL, as rich counts it) and DEL..C1 take no cell; the first printable Latin-1 takes one;
    # a wide CJK character two; a combining accent none.
    assert [char_cells(c) for c in ("\x01", "\x1f", "\x7f", "\x9f")] == [0, 0, 0, 0]
    assert [char_cells(c) for c in ("\x00", " ", "~", "\xa0", "é")] == [1, 1, 1, 1, 1]
    assert (char_cells("驱"), char_cells("\u0301")) == (2, 0)
    # Pure ASCII is counted by length (sanitized text holds no control); other text cell by cell.
    assert cells("é\x1b") == 1 and cells("驱动") == 4


def test_a_file_that_cannot_say_whether_it_is_a_terminal_gets_no_styles():
    from gpudoctor.render.textconsole import _styles_wanted

    class Closed(io.StringIO):
        def isatty(self):
            raise ValueError("I/O operation on closed file")

    assert _styles_wanted(Closed(), {}) == (False, False)
    assert _styles_wanted(object(), {}) == (False, False)  # no isatty at all
    # FORCE_COLOR styles it all the same; NO_COLOR then keeps bold and drops colours.
    assert _styles_wanted(Closed(), {"FORCE_COLOR": "1"}) == (True, True)
    assert _styles_wanted(Closed(), {"FORCE_COLOR": "1", "NO_COLOR": "1"}) == (True, False)


# --- Markdown: the whole reply -----------------------------------------------------------------------------


def test_markdown_reply_for_two_gpus_hidden_by_cuda_visible_devices():
    from gpudoctor.render.markdown import render_markdown

    # Each finding with its detail and evidence (data in code spans: literal, never a link or a mention), then the
    # plan: numbered steps, each step's summary, then its commands in a fenced block as they are typed.
    text = render_markdown(report_of("rtx2070x2-cuda-visible-devices-wrong"), ExitCode.FINDINGS)
    link = "`GPU {n}'s PCIe link runs below its maximum while idle: width x8 of x16`"
    idle = (
        "  `Idle GPUs may narrow their link to save power, so this is only a lead: measure under load. Common causes of a "
        "real shortfall: the card in a slot wired for fewer lanes, a riser or a dirty contact, a BIOS lane split, or a "
        "link that trained down after an error.`"
    )
    query = "nvidia-smi -i {n} --query-gpu=pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,pcie.link.width.max --format=csv"
    assert text.split("\n") == [
        "### gpudoctor",
        "",
        "**1 error(s), 0 warning(s)**",
        "",
        "- **Error** `cuda-visible-devices-hides-all`: `CUDA_VISIBLE_DEVICES hides every GPU`",
        "  `CUDA_VISIBLE_DEVICES='2,0', and this machine has 2 GPU(s) (indices 0-1). No entry names one of them, so "
        "every CUDA program sees zero devices.`",
        "  - `env:CUDA_VISIBLE_DEVICES`: `2,0`",
        "  - `cmd:nvidia-smi`: `2 GPU(s)`",
        "- **Note** `pcie-link-degraded`: " + link.format(n=0),
        idle,
        "  - `nvidia-smi`: `gen 1/3, width x8/x16`",
        "- **Note** `pcie-link-degraded`: " + link.format(n=1),
        idle,
        "  - `nvidia-smi`: `gen 1/3, width x8/x16`",
        "",
        "#### What to do",
        "",
        "1. **`environment variables`**",
        "   ``List GPUs that exist (indices, or UUIDs from `nvidia-smi -L`), where it is set (a command's prefix "
        "or a job script wins over the shell): here 0.``",
        "",
        "   ```sh",
        "   nvidia-smi -L",
        "   export CUDA_VISIBLE_DEVICES=0",
        "   ```",
        "2. **`GPU health`**",
        "   `Measure it under load and compare with the link's figure; reseat or move the card if it stays low.`",
        "",
        "   ```sh",
        "   gpudoctor bench bandwidth",
        "   " + query.format(n=0),
        "   sudo lspci -vv -s 0000:01:00.0 | grep -E 'LnkCap|LnkSta'",
        "   " + query.format(n=1),
        "   sudo lspci -vv -s 0000:02:00.0 | grep -E 'LnkCap|LnkSta'",
        "   ```",
        "",
        "<sub>gpudoctor check --format markdown, exit status 1</sub>",
        "",
    ]


def test_markdown_counts_each_warning_once():
    from gpudoctor.model import Severity
    from gpudoctor.render.markdown import render_markdown

    report = report_of("rtx2070x2-cuda-visible-devices-wrong")
    warned = [dataclasses.replace(f, severity=Severity.WARNING) if f.code == "pcie-link-degraded" else f for f in report.findings]
    lines = render_markdown(dataclasses.replace(report, findings=warned), ExitCode.FINDINGS).splitlines()
    assert "**1 error(s), 2 warning(s)**" in lines
    assert "- **Warning** `pcie-link-degraded`: `GPU 0's PCIe link runs below its maximum while idle: width x8 of x16`" in lines


# --- NFD labels --------------------------------------------------------------------------------------------


def test_nfd_labels_of_a_healthy_eight_gpu_node():
    from gpudoctor.render.json_report import report_document
    from gpudoctor.render.nfd import nfd_labels

    # Eight H100s of one model and one compute capability (9.0): both labelled; PyTorch's build and CUDA; label
    # values made valid (a space or `+` becomes `-`).
    doc = report_document(report_of("h100x8-driver565-torch221-cu121"), ExitCode.OK)
    assert nfd_labels(doc) == {
        "healthy": "true",
        "status": "healthy",
        "errors": "0",
        "warnings": "0",
        "driver": "565.57.01",
        "driver-major": "565",
        "cuda": "12.7",
        "cuda-major": "12",
        "gpu-count": "8",
        "gpu-model": "NVIDIA-H100-80GB-HBM3",
        "compute-capability": "9.0",
        "torch": "2.2.1-cu121",
        "torch-cuda": "true",
        "torch-cuda-version": "12.1",
    }
    # Two models or two compute capabilities: neither label (no one value is true of the node).
    gpus = doc["facts"]["driver"]["gpus"]
    gpus[1] = {**gpus[1], "name": "NVIDIA A100", "compute_capability": "8.0"}
    labels = nfd_labels(doc)
    assert "gpu-model" not in labels and "compute-capability" not in labels and labels["gpu-count"] == "8"


def test_prometheus_names_a_rocm_torch_and_tensorflow_builds():
    # A ROCm build of PyTorch says its HIP version in the rocm label; TensorFlow says the CUDA it was built for.
    frameworks = {
        "torch": {"status": "found", "value": {"version": "2.3.0+rocm6.0", "cuda": None, "hip": "6.0.32830"}},
        "tensorflow": {"status": "found", "value": {"version": "2.15.0", "cuda": "12.2"}},
        "jax": {"status": "absent", "value": None},
    }
    samples = _samples(render_prometheus({"exit_code": 0, "facts": {"frameworks": frameworks}}, timestamp=0))
    assert [s for s in samples if s.startswith("gpudoctor_framework_info")] == [
        'gpudoctor_framework_info{framework="tensorflow",version="2.15.0",cuda="12.2",rocm=""} 1',
        'gpudoctor_framework_info{framework="torch",version="2.3.0+rocm6.0",cuda="",rocm="6.0.32830"} 1',
    ]


# --- switch-cuda: more of what it prints and refuses -------------------------------------------------------


def test_install_lines_where_the_version_is_not_packaged_or_has_no_conda_package(tmp_path):
    from gpudoctor.facts import Distro
    from tests.unit.test_switch_cuda import UBUNTU_2204, _on, facts_for, make_machine

    facts = facts_for(make_machine(tmp_path))
    pip_note = (
        "(pip's nvidia-cuda-nvcc and nvidia-cuda-runtime wheels put nvcc and the runtime inside a Python environment; "
        "they make a toolkit for switch-cuda only once assembled into one directory, such as /usr/local/cuda-X.Y.)"
    )
    # Not packaged for Ubuntu 22.04: the summary names the runfile and conda itself; no second conda line.
    said = sc.install_lines(_on(facts, UBUNTU_2204), "11.3")
    assert len(said) == 2 and said[0].startswith("CUDA 11.3 is not packaged for Ubuntu 22.04.4 LTS") and said[1] == pip_note
    # CUDA 11.0 is in Ubuntu 20.04's repository but has no conda package (NVIDIA's conda labels start at 11.3).
    focal = Distro("ubuntu", "20.04", "Ubuntu 20.04.6 LTS", "debian")
    assert sc.install_lines(_on(facts, focal), "11.0") == (
        "Install it:",
        "  wget https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2004/x86_64/cuda-keyring_1.1-1_all.deb",
        "  # adds NVIDIA\u2019s CUDA repository and its signing key",
        "  sudo dpkg -i cuda-keyring_1.1-1_all.deb",
        "  sudo apt-get update",
        "  # NVIDIA\u2019s ubuntu2004 repository",
        "  sudo apt-get install -y cuda-toolkit-11-0",
        pip_note,
    )


def test_list_with_no_toolkit_says_none_found(tmp_path):
    from tests.unit.test_switch_cuda import facts_for, make_machine

    root = make_machine(tmp_path, trees=(), link_to=None)
    assert sc.render_list(facts_for(root)) == f"{_HEAD}\n  none found\n/usr/local/cuda does not exist\n"


def test_only_an_applicable_plan_is_applied(tmp_path):
    from tests.unit.test_switch_cuda import facts_for, link_of, make_machine

    # Refused (not installed), nothing to do (already active), and the shell scope: apply_switch changes nothing.
    root = make_machine(tmp_path)
    facts = facts_for(root)
    for plan in (
        sc.plan_switch(facts, "10.2", sc.SYSTEM, is_root=True),
        sc.plan_switch(facts, "12.8", sc.SYSTEM, is_root=True),
        sc.plan_switch(facts, "11.8", sc.SHELL),
        sc.plan_switch(facts, "11.8", sc.SYSTEM, is_root=False),  # refused: needs root, but names a target
    ):
        with pytest.raises(ValueError, match="not an applicable plan"):
            sc.apply_switch(plan, str(root))
    assert link_of(root) == str(root / "usr/local/cuda-12.8")


def test_alternatives_are_queried_only_for_a_link_they_manage(tmp_path, monkeypatch):
    from gpudoctor.facts import CudaLink

    # A stand-in update-alternatives that would answer any group: a plain link must not be taken for one of its.
    fake = tmp_path / "fakebin"
    fake.mkdir()
    (fake / "update-alternatives").write_text("#!/bin/sh\necho 'Alternative: /usr/local/cuda-11.8'\n")
    (fake / "update-alternatives").chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake}:{os.environ.get('PATH', '')}")
    plain = CudaLink(
        path="/usr/local/cuda",
        kind="link",
        target="/usr/local/cuda-12.8",
        resolved="/usr/local/cuda-12.8",
        managed_by_alternatives=False,
    )
    managed = dataclasses.replace(plain, target="/etc/alternatives/cuda", managed_by_alternatives=True)
    assert sc.query_alternatives("/", plain) is None
    assert sc.query_alternatives("/", managed) == ("/usr/local/cuda-11.8",)
    # Managed, but the link names nothing (read failed): nothing to ask about.
    assert sc.query_alternatives("/", dataclasses.replace(managed, target=None)) is None


def test_may_change_link_asks_about_usr_local_and_for_alternatives_etc_alternatives(tmp_path):
    from gpudoctor.facts import CudaLink

    asked = []

    class Host:
        def resolve_stat(self, path):
            asked.append(path)
            return type("S", (), {"writable": path != "/etc/alternatives"})()

    plain = CudaLink(
        path="/usr/local/cuda",
        kind="link",
        target="/usr/local/cuda-12.8",
        resolved="/usr/local/cuda-12.8",
        managed_by_alternatives=False,
    )
    host = cast(Any, Host())
    assert sc.may_change_link(host, plain) is True
    assert asked == ["/usr/local"]
    asked.clear()
    managed = dataclasses.replace(plain, managed_by_alternatives=True)
    assert sc.may_change_link(host, managed) is False
    assert asked == ["/usr/local", "/etc/alternatives"]


# --- round 4, chunk 4 --------------------------------------------------------------------------------------


def test_update_alternatives_is_pointed_at_the_databases_inside_a_temporary_root(tmp_path, monkeypatch):
    # Debian keeps the alternatives database in /var/lib/dpkg/alternatives (and logs); Red Hat in
    # /var/lib/alternatives. On a temporary root every path is the root's own, never the machine's.
    fake = tmp_path / "fakebin"
    fake.mkdir()
    (fake / "update-alternatives").write_text("#!/bin/sh\nexit 0\n")
    (fake / "update-alternatives").chmod(0o755)
    monkeypatch.setenv("PATH", str(fake))
    binary = str(fake / "update-alternatives")
    root = tmp_path / "root"
    root.mkdir()
    assert sc._alternatives_argv(str(root), "--query", "cuda") == [
        binary,
        "--altdir",
        f"{root}/etc/alternatives",
        "--admindir",
        f"{root}/var/lib/alternatives",
        "--query",
        "cuda",
    ]
    (root / "var/lib/dpkg/alternatives").mkdir(parents=True)
    assert sc._alternatives_argv(str(root), "--query", "cuda") == [
        binary,
        "--altdir",
        f"{root}/etc/alternatives",
        "--admindir",
        f"{root}/var/lib/dpkg/alternatives",
        "--log",
        f"{root}/var/log/alternatives.log",
        "--query",
        "cuda",
    ]
    assert sc._alternatives_argv("/", "--set", "cuda", "/usr/local/cuda-11.8") == [
        binary,
        "--set",
        "cuda",
        "/usr/local/cuda-11.8",
    ]


def test_render_json_is_the_document_with_sorted_keys_two_space_indent_and_a_final_newline():
    import json

    from gpudoctor.render.json_report import render_json, report_document

    report = report_of("p100-driver510-torch-cu121")
    text = render_json(report, ExitCode.FINDINGS)
    assert text.endswith("}\n") and text.startswith('{\n  "exit_code": 1,\n')
    assert json.loads(text) == json.loads(json.dumps(report_document(report, ExitCode.FINDINGS), default=str))


def test_json_error_document_says_why_and_nothing_found():
    import json

    from gpudoctor import __version__
    from gpudoctor.render.json_report import error_document

    text = error_document("snapshot unreadable", "record one", ExitCode.ERROR)
    assert json.loads(text) == {
        "schema": "gpudoctor.report/1",
        "tool_version": __version__,
        "status": "doctor-error",
        "exit_code": 3,
        "error": {"message": "snapshot unreadable", "hint": "record one"},
        "findings": [],
    }
    assert text.startswith('{\n  "error": {') and text.endswith("}\n")


def test_a_fenced_block_is_fenced_longer_than_any_backtick_run_and_never_shorter_than_three():
    from gpudoctor.render.markdown import fenced

    assert fenced(["echo hi"], "sh") == "```sh\necho hi\n```"
    assert fenced(["echo `a`"]) == "```\necho `a`\n```"
    assert fenced(["echo ````a"]) == "`````\necho ````a\n`````"
    assert fenced(["x", "a ``````b"]) == "```````\nx\na ``````b\n```````"


def test_markdown_plan_step_shows_the_alternative_with_its_commands():
    from gpudoctor.render.markdown import render_markdown

    # PyTorch cu121 on driver 510: reinstall a cu118 build, or instead upgrade the driver (its commands fenced too).
    lines = render_markdown(report_of("p100-driver510-torch-cu121"), ExitCode.FINDINGS).splitlines()
    at = lines.index("   ```", lines.index("   ```sh")) + 1
    assert lines[at] == (
        "   `Or instead (NVIDIA driver, for framework-driver-too-old): Upgrade the NVIDIA driver to >= 525.60.13, "
        "then reboot (the branch the distribution recommends; check that it is at least that).`"
    )
    assert lines[at + 1 : at + 7] == [
        "   ```sh",
        "   sudo apt-get update",
        "   # the branch Ubuntu recommends for this GPU",
        "   sudo ubuntu-drivers install",
        "   sudo reboot",
        "   ```",
    ]


def test_npd_line_is_cut_at_160_characters_by_default():
    from gpudoctor.render.nfd import render_npd

    # deploy/kubernetes/npd-gpudoctor.json sets max_output_length 160: the line fits it whole.
    doc = {"exit_code": 1, "findings": [{"code": "gpu-ecc-errors", "severity": "error", "title": "A" * 300}]}
    line = render_npd(doc)
    assert len(line) == 161 and line.endswith("…\n")
    fits = {"exit_code": 1, "findings": [{"code": "c", "severity": "error", "title": "B" * 157}]}
    assert render_npd(fits) == "c: " + "B" * 157 + "\n"


def test_npd_names_the_worst_finding_whatever_the_order():
    from gpudoctor.render.nfd import render_npd

    findings = [
        {"code": "note", "severity": "info", "title": "n"},
        {"code": "warn", "severity": "warning", "title": "w"},
        {"code": "odd", "severity": "bogus", "title": "o"},
        {"code": "err", "severity": "error", "title": "e"},
    ]
    assert render_npd({"exit_code": 1, "findings": findings}) == "err: e (+3 more)\n"
    assert render_npd({"exit_code": 1, "findings": findings[:3]}) == "warn: w (+2 more)\n"
    assert render_npd({"exit_code": 1, "findings": [findings[2], findings[0]]}) == "note: n (+1 more)\n"
    # Exit 0 with notes below --fail-on: healthy, and how many were left below.
    assert render_npd({"exit_code": 0, "findings": findings[:1]}) == "gpudoctor: healthy (1 below --fail-on)\n"
    assert render_npd({"exit_code": 3}) == "gpudoctor could not check the node: exit status 3\n"


@pytest.mark.parametrize(
    ("tf", "label"),
    [
        ({"version": "2.15.0", "cuda": "12.2"}, "true"),
        ({"version": "2.15.0", "cuda": None, "is_cuda_build": True}, "true"),  # the build flag alone says so
        ({"version": "2.15.0", "cuda": None, "is_cuda_build": False}, "false"),
    ],
)
def test_nfd_tensorflow_cuda_label(tf, label):
    from gpudoctor.render.nfd import nfd_labels

    doc = {"exit_code": 0, "findings": [], "facts": {"frameworks": {"tensorflow": {"status": "found", "value": tf}}}}
    assert nfd_labels(doc)["tensorflow-cuda"] == label


def test_text_view_shortens_evidence_to_240_characters():
    from gpudoctor.model import Evidence
    from gpudoctor.render.terminal import _for_text

    # 240 characters are shown whole; 241 become 239 and "…" (the JSON report keeps them whole).
    f = report_of("p100-driver510-torch-cu121").findings[0]
    f = dataclasses.replace(f, evidence=(Evidence("cmd:x", "a" * 240), Evidence("cmd:y", "b" * 241)))
    shown = _for_text(f, {})
    assert [e.value for e in shown.evidence] == ["a" * 240, "b" * 239 + "…"]


def test_two_gpus_saying_the_same_are_one_phrase():
    from gpudoctor.render.terminal import per_gpu

    assert per_gpu([(0, "a"), (1, "a")]) == "GPUs 0-1: a"
    assert per_gpu([(0, "a"), (1, "b")]) == "GPU 0: a; GPU 1: b"
    assert per_gpu([(i, "a") for i in range(4)] + [(4, "b"), (5, "c"), (6, "d"), (7, "e")]) == (
        "GPUs 0-3: a; GPU 4: b; GPU 5: c; GPU 6: d; +1 more GPU"
    )


def test_a_plan_that_does_not_hold_together_says_so_after_its_steps():
    from gpudoctor.cmdline import shell_for_os
    from gpudoctor.planner.prescribe import build
    from gpudoctor.render.terminal import render_plan
    from gpudoctor.render.textconsole import TextConsole

    report = report_of("p100-driver510-torch-cu121")
    plan = dataclasses.replace(build(report.findings, shell_for_os("Linux")), problems=("two steps set CUDA_HOME",))
    out = io.StringIO()
    render_plan(TextConsole(out, width=100, styled=False), plan)
    lines = out.getvalue().splitlines()
    assert lines[0] == "Plan: in this order"
    assert lines[1].startswith("  1. PyTorch ")
    assert lines[-1] == "  the plan does not hold together: two steps set CUDA_HOME"


# --- switch-cuda: the branches the suite did not reach -----------------------------------------------------


def test_what_usr_local_cuda_is_in_one_line():
    from gpudoctor.facts import CudaLink

    def link(kind, target=None, resolved=None):
        return CudaLink(path="/usr/local/cuda", kind=kind, target=target, resolved=resolved)

    assert (
        sc._describe_link(link("dir"))
        == "/usr/local/cuda is a real directory (not a link: switch-cuda can only use --shell here)"
    )
    assert sc._describe_link(link("file")) == "/usr/local/cuda is not a link (file)"
    assert sc._describe_link(link("missing")) == "/usr/local/cuda does not exist"
    assert sc._describe_link(link("link", "cuda-12.8", "/usr/local/cuda-12.8")) == (
        "/usr/local/cuda -> cuda-12.8 -> /usr/local/cuda-12.8"  # a relative target, and where it leads
    )


def test_a_plan_with_nothing_to_do_has_no_commands(tmp_path):
    from tests.unit.test_switch_cuda import facts_for, make_machine

    # /usr/local/cuda already names 12.8: nothing to run; going back is switching back to where it is.
    plan = sc.plan_switch(facts_for(make_machine(tmp_path)), "12.8", sc.SYSTEM)
    assert (plan.method, plan.refusal, plan.commands()) == ("none", None, ())


def test_a_conda_or_system_prefix_toolkit_is_not_dedicated_to_cuda():
    from gpudoctor.facts import Toolkit

    def tk(root, source="version.json", via=("CUDA_HOME",)):
        return Toolkit(root=root, version="12.4.131", version_source=source, found_via=via, nvcc=None, complete=True)

    # Its bin/ holds everything else of the environment too: never taken off PATH by a shell switch.
    assert sc._dedicated(tk("/home/u/miniconda3/envs/x", via=("CONDA_PREFIX",))) is False
    assert sc._dedicated(tk("/home/u/envs/cuda-x", source="conda-meta")) is False
    assert [sc._dedicated(tk(r)) for r in ("/", "/usr", "/usr/local", "/opt")] == [False, False, False, False]
    # NVIDIA's layout (a version file) or a directory named cuda*: every entry under it is the toolkit's.
    assert sc._dedicated(tk("/opt/nvidia/sdk")) is True
    assert sc._dedicated(tk("/home/u/cuda-12.4", source="nvcc")) is True
    assert sc._dedicated(tk("/home/u/sdk", source="nvcc")) is False


def test_alternatives_that_cannot_be_queried_are_unknown(tmp_path, monkeypatch):
    from gpudoctor.facts import CudaLink

    managed = CudaLink(
        path="/usr/local/cuda",
        kind="link",
        target="/etc/alternatives/cuda",
        resolved="/usr/local/cuda-12.8",
        managed_by_alternatives=True,
    )
    # Red Hat's alternatives has no --query (it fails): unknown, so the plan leaves the check to --set.
    fake = tmp_path / "fakebin"
    fake.mkdir()
    (fake / "update-alternatives").write_text("#!/bin/sh\necho 'Alternative: /usr/local/cuda-11.8'\nexit 1\n")
    (fake / "update-alternatives").chmod(0o755)
    monkeypatch.setenv("PATH", str(fake))
    assert sc.query_alternatives("/", managed) is None
    # Not installed at all: unknown too, and applying says so rather than guessing a path.
    monkeypatch.setattr(sc.shutil, "which", lambda *a, **k: None)
    assert sc.query_alternatives("/", managed) is None
    from gpudoctor.errors import UnsafeOperation

    with pytest.raises(UnsafeOperation, match="managed by update-alternatives, which is not installed here"):
        sc._alternatives_argv("/", "--set", "cuda", "/usr/local/cuda-11.8")


def test_a_link_replaced_by_a_directory_after_planning_is_left_alone(tmp_path):
    import shutil

    from gpudoctor.errors import UnsafeOperation
    from tests.unit.test_switch_cuda import facts_for, make_machine

    root = make_machine(tmp_path)
    plan = sc.plan_switch(facts_for(root), "11.8", sc.SYSTEM, is_root=True)
    (root / "usr/local/cuda").unlink()
    (root / "usr/local/cuda").mkdir()
    with pytest.raises(UnsafeOperation) as err:
        sc.apply_switch(plan, str(root))
    assert err.value.message == (
        "/usr/local/cuda changed since the plan was made (now not-a-link, was /usr/local/cuda-12.8); nothing changed"
    )
    assert (root / "usr/local/cuda").is_dir() and not (root / "usr/local/cuda").is_symlink()
    shutil.rmtree(root / "usr/local/cuda")


def test_verify_says_where_the_link_leads_when_the_switch_did_not_take(tmp_path):
    from gpudoctor.errors import GpudoctorError
    from tests.unit.test_switch_cuda import facts_for, host_for, make_machine

    # Planned 11.8 but never applied: the link still names 12.8, and the error says both and how to go back.
    root = make_machine(tmp_path)
    plan = sc.plan_switch(facts_for(root), "11.8", sc.SYSTEM, is_root=True)
    with pytest.raises(GpudoctorError) as err:
        sc.verify_switch(plan, host_for(root), 10.0)
    assert err.value.message == (
        "after the switch /usr/local/cuda resolves to /usr/local/cuda-12.8 (CUDA 12.8.2), not /usr/local/cuda-11.8 (CUDA 11.8.89)"
    )
    assert err.value.hint == "to go back: gpudoctor switch-cuda /usr/local/cuda-12.8"
    # Applied, it verifies and returns the new facts.
    sc.apply_switch(plan, str(root))
    assert sc.verify_switch(plan, host_for(root), 10.0).link.resolved == "/usr/local/cuda-11.8"


def test_a_toolkit_part_that_is_absent_is_skipped_and_one_that_cannot_be_read_is_untrusted():
    import stat as st

    root_dir = os.stat_result((st.S_IFDIR | 0o755, 0, 0, 1, 0, 0, 0, 0, 0, 0))
    root_file = os.stat_result((st.S_IFREG | 0o755, 0, 0, 1, 0, 0, 0, 0, 0, 0))

    def stat_fn(denied=()):
        def fn(path):
            if path.endswith(("/lib", "/targets")):
                raise FileNotFoundError(2, "No such file or directory")
            if path in denied:
                raise PermissionError(13, "Permission denied")
            return root_file if path.endswith("/nvcc") else root_dir

        return fn

    # Everything there is root's own, lib/ and targets/ absent (a lib64-only layout): trusted.
    assert sc.untrusted_toolkit("/opt/cuda", stat_fn(), lambda p: p) is None
    # bin/nvcc cannot be inspected: not trusted, and said why.
    why = sc.untrusted_toolkit("/opt/cuda", stat_fn({"/opt/cuda/bin/nvcc"}), lambda p: p)
    assert why == "/opt/cuda/bin/nvcc cannot be inspected (Permission denied)"


# --- the terminal: --deep, pasted reports and the matrix ---------------------------------------------------


def test_deep_lines_say_each_frameworks_build_devices_and_test_kernel():
    from gpudoctor.render.terminal import deep_lines

    # One line per framework, sorted by name; an import error whole on one line; a count that is not a number is
    # "GPUs"; devices named once each with their compute capability.
    deep = {
        "torch": {
            "version": "2.2.1",
            "cuda": "12.1",
            "cudnn": "8902",
            "available": True,
            "device_count": 2,
            "devices": [{"name": "Tesla P100", "capability": "6.0"}, {"name": "Tesla P100", "capability": "6.0"}],
            "arch_list": ["sm_60", "sm_70"],
            "kernel_ok": True,
        },
        "tensorflow": {"version": "2.15.0", "built_with_cuda": False, "available": False},
        "jax": {"version": "0.4.30", "backend": "gpu", "available": True, "device_count": 1, "devices": [{"name": "cuda:0"}]},
        "zzz": {"error": "ImportError:  libcudart.so.12:\n cannot open"},
        "cupy": {"available": True, "device_count": "x"},
    }
    facts = report_of("p100-driver510-torch-cu121").facts
    facts = dataclasses.replace(facts, frameworks=dataclasses.replace(facts.frameworks, deep=deep))
    assert deep_lines(facts) == [
        "--deep: import cupy: cupy; sees GPUs",
        "--deep: import jax: jax 0.4.30; backend gpu; sees 1 GPU: cuda:0",
        "--deep: import tensorflow: tensorflow 2.15.0; built without CUDA; sees no GPU",
        "--deep: import torch: torch 2.2.1; built with CUDA 12.1, cuDNN 8902; sees 2 GPUs: Tesla P100 (compute capability "
        "6.0); kernels for sm_60, sm_70; a test kernel ran",
        "--deep: import zzz failed: ImportError: libcudart.so.12: cannot open",
    ]
    # A TensorFlow built with CUDA, a torch without, and no kernel run.
    deep = {"tensorflow": {"built_with_cuda": True}, "torch": {"version": "2.2.1", "available": False}}
    facts = dataclasses.replace(facts, frameworks=dataclasses.replace(facts.frameworks, deep=deep))
    assert deep_lines(facts) == [
        "--deep: import tensorflow: tensorflow; built with CUDA; sees no GPU",
        "--deep: import torch: torch 2.2.1; built with no CUDA; sees no GPU",
    ]


def test_a_pasted_report_says_not_shown_where_a_whole_machine_would_say_none():
    from gpudoctor.render.terminal import area_summaries

    facts = report_of("ci-docker-cuda13-no-gpu").facts
    pasted = dataclasses.replace(facts, pasted=dataclasses.replace(facts.pasted, partial=True))
    assert area_summaries(pasted) == {
        "gpu": "not shown",
        "driver": "not shown",
        "platform": "Debian GNU/Linux 12 (bookworm), in docker",
        "toolkit": "13.0.88 at /usr/local/cuda-13.0 (active)",
        "cudnn": "not shown",
        "frameworks": "not shown in /root/.pyenv/versions/3.11.7/bin/python3 (the snapshot)",
    }


def test_the_cuda_a_driver_supports_comes_from_the_matrix_only_where_the_machine_did_not_say(tmp_path):
    from gpudoctor.matrix import load_matrix
    from gpudoctor.render.terminal import _matrix, area_summaries

    report = report_of("p100-driver510-torch-cu121")
    facts = report.facts
    quiet = dataclasses.replace(facts, driver=dataclasses.replace(facts.driver, nvml_cuda_version=None, smi_cuda_version=None))
    # Driver 510.47.03 runs CUDA up to 11.6 (CUDA 11.6 release notes, table 3): said, with where it came from.
    assert area_summaries(quiet, load_matrix)["driver"] == "510.47.03 (supports CUDA 11.6, by the compatibility matrix)"
    assert area_summaries(quiet)["driver"] == "510.47.03 (supports CUDA ?)"
    assert area_summaries(quiet, lambda: None)["driver"] == "510.47.03 (supports CUDA ?)"
    # The machine said it: the matrix is never loaded.
    assert area_summaries(facts, lambda: pytest.fail("loaded"))["driver"] == "510.47.03 (supports CUDA 11.6)"
    # A --matrix that cannot load: the summaries do without it (the checks report it).
    assert _matrix(dataclasses.replace(report, matrix_path=str(tmp_path / "missing.toml"))) is None


# --- chunk 5 -----------------------------------------------------------------------------------------------


def test_each_toolkits_library_directory_is_where_its_libcudart_is(tmp_path):
    import shutil

    from tests.unit.test_switch_cuda import host_for, make_machine

    # lib64 (NVIDIA's layout; 13.0's lib64 is a link to lib), targets/<arch>/lib (the layout lib64 links to in
    # NVIDIA's packages), and a tree with no libcudart at all: no directory for it, so the caller falls back.
    root = make_machine(tmp_path)
    local = root / "usr" / "local"
    (local / "cuda-12.8" / "targets" / "x86_64-linux").mkdir(parents=True)
    shutil.move(str(local / "cuda-12.8" / "lib64"), str(local / "cuda-12.8" / "targets" / "x86_64-linux" / "lib"))
    for lib in (local / "cuda-11.8" / "lib64").glob("libcudart.so*"):
        lib.unlink()
    host = host_for(root)
    toolkits = sc_facts(host).toolkits.toolkits
    assert sc.library_dirs(host, toolkits) == {
        "/usr/local/cuda-12.8": "/usr/local/cuda-12.8/targets/x86_64-linux/lib",
        "/usr/local/cuda-13.0": "/usr/local/cuda-13.0/lib64",
    }


def test_an_alternative_whose_path_holds_a_colon_is_read_whole(tmp_path, monkeypatch):
    from gpudoctor.facts import CudaLink

    # `update-alternatives --query` prints "Alternative: PATH"; only the first colon ends the field name.
    fake = tmp_path / "fakebin"
    fake.mkdir()
    (fake / "update-alternatives").write_text(
        "#!/bin/sh\necho 'Link: /usr/local/cuda'\necho 'Alternative: /opt/cuda:12.4'\necho 'Priority: 10'\n"
    )
    (fake / "update-alternatives").chmod(0o755)
    monkeypatch.setenv("PATH", str(fake))
    managed = CudaLink(
        path="/usr/local/cuda",
        kind="link",
        target="/etc/alternatives/cuda",
        resolved="/opt/cuda:12.4",
        managed_by_alternatives=True,
    )
    assert sc.query_alternatives("/", managed) == ("/opt/cuda:12.4",)


def test_markdown_for_a_healthy_machine_says_nothing_was_found():
    from gpudoctor.render.markdown import render_markdown

    assert render_markdown(report_of("h100x8-driver565-torch221-cu121"), ExitCode.OK) == (
        "### gpudoctor\n\nNo problem found in what was shown.\n\n<sub>gpudoctor check --format markdown, exit status 0</sub>\n"
    )


def test_an_npd_line_of_exactly_the_limit_is_not_cut():
    from gpudoctor.render.nfd import render_npd

    more = [{"code": "w", "severity": "warning", "title": "x"}]
    # "c: " + title + " (+1 more)": 3 + 147 + 10 = 160 characters, the limit: whole.
    doc = {"exit_code": 1, "findings": [{"code": "c", "severity": "error", "title": "T" * 147}, *more]}
    assert render_npd(doc, max_chars=160) == "c: " + "T" * 147 + " (+1 more)\n"
    longer = {"exit_code": 1, "findings": [{"code": "c", "severity": "error", "title": "T" * 148}, *more]}
    # One more: the title is cut, the count kept.
    assert render_npd(longer, max_chars=160) == "c: " + "T" * 146 + "… (+1 more)\n"


@pytest.mark.parametrize(
    ("slug", "said"),
    [
        ("rtx3060-tf211-cuda12-only", "tensorflow 2.11.0 in /usr/bin/python3 (the snapshot)"),
        ("rtx3060-jax-cudnn-shadowed-by-ld-library-path", "jax 0.6.0 in /home/user/venv/bin/python3 (the snapshot)"),
    ],
)
def test_the_frameworks_summary_names_tensorflow_and_jax(slug, said):
    from gpudoctor.render.terminal import area_summaries

    assert area_summaries(report_of(slug).facts)["frameworks"] == said


def test_the_frameworks_summary_says_which_torch_build():
    from gpudoctor.render.terminal import area_summaries

    facts = report_of("p100-driver510-torch-cu121").facts
    torch = facts.frameworks.torch.value

    def said(**changes):
        found = dataclasses.replace(facts.frameworks.torch, value=dataclasses.replace(torch, **changes))
        return area_summaries(dataclasses.replace(facts, frameworks=dataclasses.replace(facts.frameworks, torch=found)))[
            "frameworks"
        ]

    where = " in /usr/bin/python3 (the snapshot)"
    assert said() == "torch 2.2.1+cu121 (CUDA 12.1)" + where
    assert said(version="2.3.0+rocm6.0", cuda=None, hip="6.0.32830") == "torch 2.3.0+rocm6.0 (ROCm build)" + where
    assert said(version="2.2.1+cpu", cuda=None, hip=None) == "torch 2.2.1+cpu (CPU build)" + where
    assert said(version="2.2.1", cuda=None, hip=None, build_known=False) == "torch 2.2.1 (build not recorded)" + where


def test_a_backend_is_said_of_jax_only():
    from gpudoctor.render.terminal import deep_lines

    facts = report_of("p100-driver510-torch-cu121").facts
    deep = {"cupy": {"backend": "cuda", "available": False}, "jax": {"backend": "cpu", "available": False}}
    facts = dataclasses.replace(facts, frameworks=dataclasses.replace(facts.frameworks, deep=deep))
    assert deep_lines(facts) == ["--deep: import cupy: cupy; sees no GPU", "--deep: import jax: jax; backend cpu; sees no GPU"]


def test_the_plan_shows_steps_with_commands_or_prose_and_leaves_out_empty_ones():
    from types import SimpleNamespace

    from gpudoctor.render.terminal import shown_steps

    commands, prose, both, empty = (
        SimpleNamespace(commands=("x",), summaries=()),
        SimpleNamespace(commands=(), summaries=("y",)),
        SimpleNamespace(commands=("x",), summaries=("y",)),
        SimpleNamespace(commands=(), summaries=()),
    )
    assert shown_steps(SimpleNamespace(steps=[commands, empty, prose, both])) == [commands, prose, both]


# --- NFD label values and the console's styles ------------------------------------------------------------


def test_nfd_label_values_are_valid_kubernetes_label_values_or_nothing():
    from gpudoctor.render.nfd import label_value

    # At most 63 characters of [A-Za-z0-9._-], first and last a letter or digit (Kubernetes label value syntax).
    assert label_value("Tesla P100-PCIE-16GB") == "Tesla-P100-PCIE-16GB"
    assert label_value("2.2.1+cu121") == "2.2.1-cu121"
    assert label_value("x" * 70) == "x" * 63
    assert label_value("a" * 62 + "-b") == "a" * 62  # cut to 63, then the trailing "-" trimmed
    assert label_value("-a-") == "a"
    assert (label_value("___"), label_value(None), label_value(False)) == (None, None, None)
    assert (label_value(0), label_value(True)) == ("0", "True")


def test_nfd_labels_for_a_doctor_that_failed_and_for_versions_that_are_not_numbers():
    from gpudoctor.render.nfd import nfd_labels

    assert nfd_labels({"exit_code": 3, "error": {"message": "x"}}) == {"healthy": "false", "status": "doctor-error"}
    doc = {
        "exit_code": 1,
        "status": "warning",
        "findings": [{"severity": "warning"}, {"severity": "error"}, {"severity": "warning"}, "junk"],
        "facts": {"driver": {"smi_driver_version": "unknown", "smi_cuda_version": "N/A"}},
    }
    # No major version can be read from "unknown" or "N/A": those labels are left out, not guessed.
    assert nfd_labels(doc) == {
        "healthy": "false",
        "status": "warning",
        "errors": "1",
        "warnings": "2",
        "driver": "unknown",
        "cuda": "N-A",
        "gpu-count": "0",
    }


def test_the_console_writes_sgr_codes_for_styles_and_colours_only_where_wanted():
    from gpudoctor.render.textconsole import TextConsole

    def printed(markup, **kw):
        out = io.StringIO()
        TextConsole(out, width=80, **kw).print(markup)
        return out.getvalue()

    # bold is 1, dim 2, red 31 (ECMA-48 SGR); a style it does not know (a link) is shown plain.
    assert printed("[red bold]x[/] [dim]y[/dim] [link=https://a]z[/link]", styled=True) == (
        "\x1b[1;31mx\x1b[0m \x1b[2my\x1b[0m z\n"
    )
    # NO_COLOR keeps bold and drops the colour; TERM=dumb writes no codes at all.
    assert printed("[red bold]x[/] y", environ={"FORCE_COLOR": "1", "NO_COLOR": "1"}) == "\x1b[1mx\x1b[0m y\n"
    assert printed("[red bold]x[/] y", environ={"TERM": "dumb"}) == "x y\n"


# --- JUnit: the checks suite -------------------------------------------------------------------------------


def test_junit_checks_suite_counts_failures_errors_notes_and_stray_findings():
    import xml.etree.ElementTree as ET

    from gpudoctor import __version__
    from gpudoctor.checks import all_checks
    from gpudoctor.model import Severity
    from gpudoctor.render.junit import render_junit

    # CUDA_VISIBLE_DEVICES hides both GPUs (an error: a failure); two PCIe notes (below --fail-on warning: written to
    # their case's system-out, not failing it); the cuda-link check crashed (an error element in its own case); a
    # finding no check owns (a warning: a failure of the "other-findings" case). Time: probes and checks only.
    report = report_of("rtx2070x2-cuda-visible-devices-wrong")
    base = report.findings[0]
    crash = dataclasses.replace(
        base,
        code="internal-check-error",
        title="the cuda-link check crashed; its area was not judged",
        severity=Severity.ERROR,
        remediation=None,
        evidence=(),
    )
    stray = dataclasses.replace(
        base, code="made-up-code", title="stray", severity=Severity.WARNING, remediation=None, evidence=()
    )
    report = dataclasses.replace(
        report, findings=[*report.findings, crash, stray], timings_s={"probes_total": 0.5, "checks_total": 0.25, "other": 9.0}
    )
    root = ET.fromstring(render_junit(report, (), ExitCode.FINDINGS, node="n1"))
    tests = str(len(all_checks()) + 1)
    assert root.attrib == {"name": "gpudoctor", "tests": tests, "failures": "2", "errors": "1", "time": "0.750"}
    (suite,) = root.iter("testsuite")
    assert suite.attrib == {
        "name": "gpudoctor.checks",
        "hostname": "n1",
        "tests": tests,
        "failures": "2",
        "errors": "1",
        "skipped": "0",
        "time": "0.750",
    }
    assert [(p.get("name"), p.get("value")) for p in suite.iter("property")] == [
        ("tool_version", __version__),
        ("host_mode", "replay"),
        ("exit_code", "1"),
        ("fail_on", "warning"),
    ]
    told = {tc.get("name"): [(c.tag, c.get("type"), c.get("message")) for c in tc] for tc in suite.iter("testcase") if len(tc)}
    assert told == {
        "cuda-visible-devices": [("failure", "error", "[cuda-visible-devices-hides-all] CUDA_VISIBLE_DEVICES hides every GPU")],
        "pcie-link": [("system-out", None, None)],
        "cuda-link": [
            ("error", "internal-check-error", "[internal-check-error] the cuda-link check crashed; its area was not judged")
        ],
        "other-findings": [("failure", "warning", "[made-up-code] stray")],
    }
    (out,) = [tc.find("system-out") for tc in suite.iter("testcase") if tc.get("name") == "pcie-link"]
    assert out is not None and (out.text or "").startswith(
        "info: [pcie-link-degraded] GPU 0's PCIe link runs below its maximum while idle: width x8 of x16\nIdle GPUs"
    )
    assert "\n\ninfo: [pcie-link-degraded] GPU 1's PCIe link" in (out.text or "")
    (classes,) = {tc.get("classname") for tc in suite.iter("testcase") if tc.get("name") == "other-findings"}
    assert classes == "gpudoctor.doctor"
    # At --fail-on error the stray warning no longer fails; the crash is still an error.
    strict = ET.fromstring(render_junit(report, (), ExitCode.FINDINGS, fail_on=Severity.ERROR))
    assert (strict.get("failures"), strict.get("errors")) == ("1", "1")


def test_prometheus_gpu_compute_capability_as_written_or_joined():
    # NVML's (major, minor) list is joined with a dot; a string (nvidia-smi's "8.6") is kept as it is.
    gpus = [{"index": 0, "compute_capability": "8.6"}, {"index": 1, "compute_capability": [9, 0]}, {"index": True}]
    samples = _samples(render_prometheus({"exit_code": 0, "facts": {"driver": {"gpus": gpus}}}, timestamp=0))
    assert [s for s in samples if s.startswith("gpudoctor_gpu_info")] == [
        'gpudoctor_gpu_info{gpu="",name="",uuid="",pci_bus_id="",compute_capability=""} 1',  # an index that is no number
        'gpudoctor_gpu_info{gpu="0",name="",uuid="",pci_bus_id="",compute_capability="8.6"} 1',
        'gpudoctor_gpu_info{gpu="1",name="",uuid="",pci_bus_id="",compute_capability="9.0"} 1',
    ]


def test_built_with_cuda_is_said_of_tensorflow_only_and_only_when_it_was_read():
    from gpudoctor.render.terminal import deep_lines

    facts = report_of("p100-driver510-torch-cu121").facts
    deep = {"cupy": {"built_with_cuda": True}, "tensorflow": {"version": "2.15.0"}}
    facts = dataclasses.replace(facts, frameworks=dataclasses.replace(facts.frameworks, deep=deep))
    assert deep_lines(facts) == [
        "--deep: import cupy: cupy; sees no GPU",
        "--deep: import tensorflow: tensorflow 2.15.0; sees no GPU",
    ]


# --- the whole text view -----------------------------------------------------------------------------------


def test_the_text_view_of_two_gpus_hidden_by_cuda_visible_devices():
    # Each area once, in order, its glyph the worst finding's (✗ error, i note), ✓ where all is well and "-" where
    # nothing is there; per-GPU notes that say the same merged; the fix points at its step; the plan with its
    # commands whole; the counts last.
    query = "nvidia-smi -i {n} --query-gpu=pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,pcie.link.width.max --format=csv"
    assert render("rtx2070x2-cuda-visible-devices-wrong").splitlines() == [
        "gpudoctor check (replayed snapshot)",
        "✗ GPU: 2 × NVIDIA GeForce RTX 2070",
        "    ✗ CUDA_VISIBLE_DEVICES hides every GPU (cuda-visible-devices-hides-all)",
        "      CUDA_VISIBLE_DEVICES='2,0', and this machine has 2 GPU(s) (indices 0-1). No entry names one of",
        "      them, so every CUDA program sees zero devices.",
        "      Fix: List GPUs that exist (indices, or UUIDs from `nvidia-smi -L`), where it is set (a",
        "        command's prefix or a job script wins over the shell): here 0. (step 1 of the plan)",
        "✓ NVIDIA driver: 590.44.01 (supports CUDA 13.1)",
        "✓ Platform and container: Ubuntu 22.04.4 LTS",
        "- CUDA toolkits: none found",
        "- cuDNN: none found",
        "- Frameworks: none installed",
        "i GPU health: GPUs 0-1: PCIe Gen1 x8",
        "    i GPUs 0-1: PCIe link runs below its maximum while idle: width x8 of x16 (pcie-link-degraded)",
        "      Idle GPUs may narrow their link to save power, so this is only a lead: measure under load.",
        "      Common causes of a real shortfall: the card in a slot wired for fewer lanes, a riser or a",
        "      dirty contact, a BIOS lane split, or a link that trained down after an error.",
        "      Fix: Measure it under load and compare with the link's figure; reseat or move the card if it",
        "        stays low. (step 2 of the plan)",
        "✓ GPU memory: GPUs 0-1: 0.0 GiB of 8.0 GiB used",
        "Plan: in this order",
        "  1. environment variables cuda-visible-devices-hides-all",
        "     List GPUs that exist (indices, or UUIDs from `nvidia-smi -L`), where it is set (a command's",
        "     prefix or a job script wins over the shell): here 0.",
        "       nvidia-smi -L",
        "       export CUDA_VISIBLE_DEVICES=0",
        "  2. GPU health pcie-link-degraded",
        "     Measure it under load and compare with the link's figure; reseat or move the card if it stays",
        "     low.",
        "       gpudoctor bench bandwidth",
        "       " + query.format(n=0),
        "       sudo lspci -vv -s 0000:01:00.0 | grep -E 'LnkCap|LnkSta'",
        "       " + query.format(n=1),
        "       sudo lspci -vv -s 0000:02:00.0 | grep -E 'LnkCap|LnkSta'",
        "1 error(s), 0 warning(s), 2 note(s). Details of any code: gpudoctor explain CODE",
    ]


def test_the_text_view_in_ascii_of_a_container_started_without_gpus():
    # A terminal that cannot carry ✓ and ✗ gets [OK], [-], [X]; the step runs on the host and says so.
    assert render("docker-started-without-gpus", encoding="ascii").splitlines() == [
        "gpudoctor check (replayed snapshot)",
        "[OK] GPU: 1 NVIDIA device(s) on the PCI bus",
        "[-] NVIDIA driver: not loaded",
        "[X] Platform and container: Ubuntu 22.04.4 LTS, in docker",
        "    [X] this docker container was started without access to the GPU (container-no-gpu)",
        "      No /dev/nvidia* device nodes and no NVIDIA driver library inside the container: the runtime",
        "      did not pass the GPU in. Installing a driver inside the container does not help; the container",
        "      must be started with GPU access.",
        "      Fix: Start the container with GPU access through the NVIDIA container toolkit (on the host;",
        "        with docker compose: deploy.resources.reservations.devices with driver nvidia and",
        "        capabilities [gpu]). (step 1 of the plan)",
        "[-] CUDA toolkits: none found",
        "[OK] cuDNN: 8.9.2.26",
        "[OK] Frameworks: torch 2.2.1+cu121 (CUDA 12.1) in /usr/bin/python3 (the snapshot)",
        "Plan: in this order",
        "  1. container runtime (on the host) container-no-gpu",
        "     Start the container with GPU access through the NVIDIA container toolkit (on the host; with",
        "     docker compose: deploy.resources.reservations.devices with driver nvidia and capabilities",
        "     [gpu]).",
        "       # with your usual options",
        "       docker run --gpus all '<image>'",
        "     or instead (container runtime on the host, for container-no-gpu): Only if `docker run --gpus",
        "       all` fails with 'could not select device driver': install the NVIDIA container toolkit on the",
        "       host and register it with docker; restarting docker stops every container on the host.",
        "       # read-only: a path printed means the toolkit is installed: skip its install below, configure and restart docker",
        "       command -v nvidia-container-runtime-hook",
        "       # the host's distribution decides the route: the apt route below is Ubuntu's and Debian's, RHEL, Fedora "
        "and SUSE take dnf or zypper from NVIDIA's install guide",
        "       cat /etc/os-release",
        "       # Docker from snap does not use this toolkit: use Docker's own packages",
        "       snap list docker",
        "       # NVIDIA container-toolkit repository, its signing key",
        "       curl -fsSL https://nvidia.github.io/libnvidia-container/gpgkey | sudo gpg --dearmor -o "
        "/usr/share/keyrings/nvidia-container-toolkit-keyring.gpg",
        "       sudo curl -fsSL -o /etc/apt/sources.list.d/nvidia-container-toolkit.list "
        "https://nvidia.github.io/libnvidia-container/stable/deb/nvidia-container-toolkit.list",
        "       sudo sed -i 's#deb https://#deb [signed-by=/usr/share/keyrings/nvidia-container-toolkit-keyring.gpg] "
        "https://#g' /etc/apt/sources.list.d/nvidia-container-toolkit.list",
        "       sudo apt-get update",
        "       sudo apt-get install -y nvidia-container-toolkit",
        "       sudo nvidia-ctk runtime configure --runtime=docker",
        "       # stops every running container on this host",
        "       sudo systemctl restart docker",
        "       # with your usual options",
        "       docker run --gpus all '<image>'",
        "1 error(s), 0 warning(s), 0 note(s). Details of any code: gpudoctor explain CODE",
    ]


# --- switch-cuda: refusals, whole ---------------------------------------------------------------------------


def test_refusals_say_the_way_out_whole(tmp_path):
    from tests.unit.test_switch_cuda import facts_for, make_machine

    facts = facts_for(make_machine(tmp_path))
    eval_line = '  eval "$(gpudoctor switch-cuda 11.8 --shell)"'
    # Not root: the same command with sudo, or this shell only.
    plan = sc.plan_switch(facts, "11.8", sc.SYSTEM, is_root=False)
    assert (plan.refusal, plan.manual) == (
        "changing /usr/local/cuda needs root",
        ("Run it as root:", "  sudo gpudoctor switch-cuda 11.8", "Or, for this shell only (no root):", eval_line),
    )
    # /usr/local/cuda is a plain file: not a link, not a toolkit; moved aside as .orig by the user, never by gpudoctor.
    link = dataclasses.replace(facts.toolkits.link, kind="file", target=None, resolved=None)
    plan = sc.plan_switch(
        dataclasses.replace(facts, toolkits=dataclasses.replace(facts.toolkits, link=link)), "11.8", sc.SYSTEM, is_root=True
    )
    assert (plan.refusal, plan.manual) == (
        "/usr/local/cuda is not a symbolic link (file); gpudoctor never deletes or moves what it did not create",
        (
            "For this shell only (no root, nothing moved):",
            eval_line,
            "Or move it aside yourself, then link (atomically):",
            "  sudo mv -T /usr/local/cuda /usr/local/cuda.orig",
            "  sudo ln -sn /usr/local/cuda-11.8 /usr/local/cuda",
        ),
    )
    # update-alternatives' group "cuda-12" without 13.0 among its choices: register it in that group, then set it.
    link = dataclasses.replace(facts.toolkits.link, target="/etc/alternatives/cuda-12", managed_by_alternatives=True)
    managed = dataclasses.replace(facts, toolkits=dataclasses.replace(facts.toolkits, link=link))
    plan = sc.plan_switch(managed, "13", sc.SYSTEM, is_root=True, alternatives=("/usr/local/cuda-11.8",))
    assert (plan.method, plan.alternatives_name) == ("alternatives", "cuda-12")
    assert (plan.refusal, plan.manual) == (
        "/usr/local/cuda is managed by update-alternatives (/etc/alternatives/cuda-12), and /usr/local/cuda-13.0 is not one of its choices",
        (
            "Register it, then choose it (priority: any number; --set makes the choice manual):",
            "  sudo update-alternatives --install /usr/local/cuda cuda-12 /usr/local/cuda-13.0 10",
            "  sudo update-alternatives --set cuda-12 /usr/local/cuda-13.0",
        ),
    )
    # Choices unknown (Red Hat's alternatives has no --query): planned, and --set will say if it is not a choice.
    assert sc.plan_switch(managed, "13", sc.SYSTEM, is_root=True, alternatives=None).refusal is None


def test_the_shell_environment_keeps_the_users_entries_and_sets_only_variables_in_use(tmp_path):
    from tests.unit.test_switch_cuda import facts_for, make_machine

    facts = facts_for(make_machine(tmp_path))
    (target,) = [t for t in facts.toolkits.toolkits if t.root == "/usr/local/cuda-11.8"]
    env = {
        # An empty entry (the current directory: the user's choice), another toolkit's bin (with a trailing slash),
        # a CUDA directory no probe found (/opt/cuda-10.2) and the target's own bin already there.
        "PATH": "/usr/local/cuda-11.8/bin::/opt/cuda-10.2/bin:/usr/local/cuda-12.8/bin/:/usr/bin",
        "LD_LIBRARY_PATH": "",
        "CUDA_PATH": "/x",
        "CUDA_ROOT": "",
    }
    assert sc.shell_environment(env, target, "/usr/local/cuda-11.8/lib64", facts.toolkits.toolkits) == (
        ("CUDA_HOME", "/usr/local/cuda-11.8"),
        ("CUDA_PATH", "/usr/local/cuda-11.8"),  # set because it was; CUDA_ROOT was empty, so left alone
        ("PATH", "/usr/local/cuda-11.8/bin::/usr/bin"),
        ("LD_LIBRARY_PATH", "/usr/local/cuda-11.8/lib64"),  # never a trailing ":" (the current directory)
    )
    assert sc.shell_environment({}, target, "/usr/local/cuda-11.8/lib64", facts.toolkits.toolkits) == (
        ("CUDA_HOME", "/usr/local/cuda-11.8"),
        ("PATH", "/usr/local/cuda-11.8/bin"),
        ("LD_LIBRARY_PATH", "/usr/local/cuda-11.8/lib64"),
    )


# --- chunk 7 -----------------------------------------------------------------------------------------------


def test_markdown_of_pasted_text_lists_what_was_read_in_a_details_block():
    from gpudoctor.render.markdown import render_markdown

    # Each block: what it was, its source and line range (0-0 where none was recorded), what it gave; data escaped.
    blocks = [
        {"kind": "nvidia_smi", "what": "nvidia-smi", "source": "issue.txt", "lines": [3, 20], "gave": "driver 550.54.14, 1 GPU"},
        {"kind": "collect_env", "source": "-", "gave": "torch 2.2.2+cpu"},
    ]
    text = render_markdown(report_of("p100-driver510-torch-cu121"), ExitCode.FINDINGS, pasted={"blocks": blocks})
    assert text[text.index("<details>") :] == (
        "<details><summary>What gpudoctor read</summary>\n"
        "\n"
        "- `nvidia-smi` (`issue.txt`, lines 3-20): `driver 550.54.14, 1 GPU`\n"
        "- `collect_env` (`-`, lines 0-0): `torch 2.2.2+cpu`\n"
        "\n"
        "</details>\n"
        "\n"
        "<sub>gpudoctor check --format markdown, exit status 1</sub>\n"
    )


def test_junit_failure_text_is_the_detail_evidence_and_fix_and_an_unmet_requirement_fails_at_its_own_severity():
    import xml.etree.ElementTree as ET

    from gpudoctor.checks.requirements import evaluate, parse_requirements
    from gpudoctor.model import Severity
    from gpudoctor.render.junit import render_junit

    report = report_of("rtx2070x2-cuda-visible-devices-wrong")
    outcomes = evaluate(parse_requirements(["gpus>=2"]), report.facts, report.findings)
    (unmet,) = outcomes
    assert unmet.finding is not None and unmet.finding.severity == Severity.ERROR
    report = dataclasses.replace(report, findings=[*report.findings, unmet.finding])
    # --fail-on error: an error-severity unmet requirement is at the threshold, so it fails.
    root = ET.fromstring(render_junit(report, outcomes, ExitCode.FINDINGS, fail_on=Severity.ERROR))
    failures = {str(tc.get("name")): str(f.text) for tc in root.iter("testcase") for f in tc.iter("failure")}
    assert sorted(failures) == ["cuda-visible-devices", "gpus>=2"]
    assert failures["cuda-visible-devices"] == (
        "CUDA_VISIBLE_DEVICES='2,0', and this machine has 2 GPU(s) (indices 0-1). No entry names one of them, so every "
        "CUDA program sees zero devices.\n"
        "evidence: env:CUDA_VISIBLE_DEVICES: 2,0\n"
        "evidence: cmd:nvidia-smi: 2 GPU(s)\n"
        "fix: List GPUs that exist (indices, or UUIDs from `nvidia-smi -L`), where it is set (a command's prefix or a job "
        "script wins over the shell): here 0.\n"
        "  nvidia-smi -L\n"
        "  export CUDA_VISIBLE_DEVICES=0"
    )


def test_an_empty_plan_prints_nothing():
    from gpudoctor.cmdline import shell_for_os
    from gpudoctor.planner.prescribe import build
    from gpudoctor.render.terminal import render_plan
    from gpudoctor.render.textconsole import TextConsole

    out = io.StringIO()
    render_plan(TextConsole(out, width=100, styled=False), build([], shell_for_os("Linux")))
    assert out.getvalue() == ""
    # A healthy machine's view: its areas, then "No problems found." and no plan heading.
    lines = render("h100x8-driver565-torch221-cu121").splitlines()
    assert not any(line.startswith("Plan") for line in lines) and lines[-1] == "✓ No problems found."


def test_a_switch_plan_cannot_be_changed_after_it_was_checked(tmp_path):
    from tests.unit.test_switch_cuda import facts_for, make_machine

    # refuse_untrusted_target and apply_switch judge the same plan object: it is immutable, so what was checked
    # is what is applied.
    plan = sc.plan_switch(facts_for(make_machine(tmp_path)), "11.8", sc.SYSTEM, is_root=True)
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.refusal = None  # type: ignore[misc]


def test_junit_for_a_doctor_that_failed_without_words_or_hint():
    import xml.etree.ElementTree as ET

    from gpudoctor.render.junit import render_junit_error

    root = ET.fromstring(render_junit_error("", None))
    assert root.attrib == {"name": "gpudoctor", "tests": "1", "failures": "0", "errors": "1"}
    (case,) = root.iter("testcase")
    assert case.attrib == {"classname": "gpudoctor.doctor", "name": "gpudoctor", "time": "0"}
    (error,) = case
    assert (error.tag, error.get("type"), error.get("message"), error.text or "") == ("error", "gpudoctor-failed", "failed", "")
    (error,) = ET.fromstring(render_junit_error("boom", None)).iter("error")
    assert (error.get("message"), error.text) == ("boom", "boom")  # no hint: no "hint:" line


# --- chunk 8 -----------------------------------------------------------------------------------------------


def test_a_second_switch_waits_for_the_lock_and_then_goes_on(tmp_path):
    import fcntl
    import threading

    # Another switch holds the lock briefly: this one waits (up to its timeout) rather than failing at once.
    path = str(tmp_path / sc.LOCK_NAME)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)
    release = threading.Timer(0.2, os.close, (fd,))
    release.start()
    try:
        with sc._locked(path, 30.0):
            entered = True
    finally:
        release.join()
    assert entered


def test_github_summary_fix_cell_of_a_finding_with_prose_only_or_no_fix():
    from gpudoctor.render.github import render_github_summary

    report = report_of("rtx2070x2-cuda-visible-devices-wrong")
    first = report.findings[0]
    assert first.remediation is not None
    prose = dataclasses.replace(first, remediation=dataclasses.replace(first.remediation, commands=()))
    bare = dataclasses.replace(first, code="no-fix", remediation=None)
    lines = render_github_summary(dataclasses.replace(report, findings=[prose, bare]), (), ExitCode.FINDINGS).splitlines()
    assert lines[8:10] == [
        "| error | `cuda-visible-devices-hides-all` | `CUDA_VISIBLE_DEVICES hides every GPU` | ``List GPUs that exist "
        "(indices, or UUIDs from `nvidia-smi -L`), where it is set (a command's prefix or a job script wins over the "
        "shell): here 0.`` |",
        "| error | `no-fix` | `CUDA_VISIBLE_DEVICES hides every GPU` |  |",
    ]


def test_prometheus_writes_no_help_for_a_metric_without_samples():
    # Nothing installed, no GPU: the info families have no sample, so no HELP or TYPE line names them.
    text = render_prometheus({"exit_code": 0, "facts": {}}, timestamp=0)
    for name in ("gpudoctor_framework_info", "gpudoctor_cuda_toolkit_info", "gpudoctor_cudnn_info", "gpudoctor_gpu_info"):
        assert name not in text
    assert text.count("# HELP ") == text.count("# TYPE ") == 7


def test_prose_is_never_narrowed_below_24_columns():
    from gpudoctor.render.terminal import say
    from gpudoctor.render.textconsole import TextConsole

    def said(text, width, indent=""):
        out = io.StringIO()
        say(TextConsole(out, width=width, styled=False), text, indent)
        return out.getvalue().splitlines()

    # 25 characters do not fit 24; on a 10-column terminal the text is still 24 wide, not 10.
    assert said("a" * 12 + " " + "b" * 12, 10) == ["a" * 12, "b" * 12]
    assert said("a" * 11 + " " + "b" * 12, 10) == ["a" * 11 + " " + "b" * 12]
    # The indent does not eat into those 24 columns either.
    assert said("a" * 11 + " " + "b" * 12, 10, "    ") == ["    " + "a" * 11 + " " + "b" * 12]


def test_a_toolkit_seen_only_as_nvcc_on_path_is_said_so():
    from gpudoctor.render.terminal import area_summaries

    facts = report_of("p100-driver510-torch-cu121").facts
    tks = dataclasses.replace(facts.toolkits, toolkits=(), nvcc_on_path_version="12.4")
    assert area_summaries(dataclasses.replace(facts, toolkits=tks))["toolkit"] == "nvcc 12.4 on PATH (no install folder found)"


def test_the_text_view_is_not_verbose_unless_asked():
    from gpudoctor.render.terminal import render_terminal
    from gpudoctor.render.textconsole import TextConsole

    out = io.StringIO()
    render_terminal(report_of("p100-driver510-torch-cu121"), TextConsole(out, width=100, styled=False))
    text = out.getvalue()
    assert "evidence:" not in text and "timings:" not in text and "sources:" not in text


# --- chunk 9 -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("slug", "label"),
    [
        ("rtx3060-jax-cudnn-shadowed-by-ld-library-path", "true"),  # jax_cuda12_plugin installed
        ("rtx4090-jax-cpu-only", "false"),  # jax without a CUDA plugin: CPU only
    ],
)
def test_nfd_jax_cuda_label_follows_its_plugins(slug, label):
    from gpudoctor.render.json_report import report_document
    from gpudoctor.render.nfd import nfd_labels

    assert nfd_labels(report_document(report_of(slug), ExitCode.FINDINGS))["jax-cuda"] == label


@pytest.mark.parametrize("exit_code", [None, "1", True])
def test_prometheus_leaves_out_an_exit_status_that_is_not_a_number(exit_code):
    # A hand-edited or broken document: no exit status and no health can be said, the rest still is.
    samples = _samples(render_prometheus({"exit_code": exit_code}, timestamp=0))
    assert not any(s.startswith(("gpudoctor_exit_code", "gpudoctor_healthy")) for s in samples)
    assert "gpudoctor_check_success 1" in samples


def test_a_driver_version_not_recorded_is_said_when_nvml_gave_gpus_or_cuda():
    from gpudoctor.probed import Absent
    from gpudoctor.render.terminal import area_summaries

    facts = report_of("rtx2070x2-cuda-visible-devices-wrong").facts
    driver = dataclasses.replace(facts.driver, nvml_driver_version=None, smi_driver_version=None)
    kernel = dataclasses.replace(facts.kernel, proc_driver=Absent("not in the pasted text"), nvidia_loaded=None)
    facts = dataclasses.replace(facts, kernel=kernel)

    def said(**changes):
        return area_summaries(dataclasses.replace(facts, driver=dataclasses.replace(driver, **changes)))["driver"]

    assert said(nvml_cuda_version=None, smi_cuda_version=None) == "version not recorded"  # GPUs listed, no CUDA
    assert said(gpus=()) == "version not recorded (supports CUDA 13.1)"  # CUDA said, no GPU
    assert said(gpus=(), nvml_cuda_version=None, smi_cuda_version=None) == "not loaded"


# --- GitHub: escaping, piece by piece ----------------------------------------------------------------------


def test_github_workflow_command_escapes_as_the_runner_unescapes():
    from gpudoctor.render.github import escape_property, log_text, workflow_command

    # actions/toolkit command.ts: data % CR LF -> %25 %0D %0A; a property also : , -> %3A %2C. Controls are first
    # shown as text (a CR in a message is \x0d, never a carriage return); a property is one line. A property
    # that is None is left out; no property at all leaves no space before "::".
    assert workflow_command("error", "50% done\r\nnext", title="a:b,c%\n", **cast(dict[str, str], {"file": None})) == (
        "::error title=a%3Ab%2Cc%25\\x0a::50%25 done\\x0d%0Anext"
    )
    assert workflow_command("notice", "m") == "::notice::m"
    assert escape_property("a:b,c%\r\n") == "a%3Ab%2Cc%25%0D%0A"
    # A plain log line: one line, and no legacy `##[` command.
    assert log_text("##[add-mask]x\ny") == "#\\#[add-mask]x\\x0ay"


def test_github_table_cells_and_code_spans():
    from gpudoctor.render.github import _cell, _code

    # Each line a code span (HTML and Markdown literal inside), the cell separator escaped, a line feed as <br>.
    assert _cell("a <b> & *c* | d\nline2") == "`a <b> & *c* \\| d`<br>`line2`"
    # Code spans: fenced longer than any backtick run inside, padded where the content starts or ends with a
    # backtick or a space, `|` escaped only inside a table; nothing at all is no span.
    assert [_code(""), _code("a`b"), _code("`x"), _code(" x"), _code("a|b"), _code("a|b", in_table=False)] == [
        "",
        "``a`b``",
        "`` `x ``",
        "`  x `",
        "`a\\|b`",
        "`a|b`",
    ]


# --- chunk 10 ----------------------------------------------------------------------------------------------


def test_a_command_printed_to_a_rich_console_is_not_highlighted():
    from rich.console import Console

    from gpudoctor.render.terminal import command

    # The bench views print through rich: a command must come out as typed, no colour on its numbers or paths
    # (rich's highlighter would add escape codes that a copy from some terminals keeps).
    out = io.StringIO()
    command(Console(file=out, force_terminal=True, color_system="standard", width=80), "nvidia-smi -i 0 --query-gpu=x", "  ")
    assert out.getvalue() == "  nvidia-smi -i 0 --query-gpu=x\n"


def test_the_plan_heading_and_the_timings_hang_two_columns_in_when_they_wrap():
    from gpudoctor.planner.prescribe import build
    from gpudoctor.render.terminal import render_plan, render_terminal
    from gpudoctor.render.textconsole import TextConsole

    report = report_of("p100-driver510-torch-cu121")
    out = io.StringIO()
    render_plan(TextConsole(out, width=20, styled=False), build(report.findings, "powershell"))
    assert out.getvalue().splitlines()[:2] == ["Plan (PowerShell): in", "  this order"]
    timed = dataclasses.replace(
        report, timings_s={"probes_total": 0.5, "checks_total": 0.25, "probe_driver": 0.125, "probe_toolkits": 0.0625}
    )
    out = io.StringIO()
    render_terminal(timed, TextConsole(out, width=40, styled=False), verbose=True)
    # Sorted by name, in whole milliseconds; a figure keeps its unit on its line (issue 31: not "62" / "ms").
    assert out.getvalue().splitlines()[-3:] == [
        "timings: checks_total 250ms,",
        "  probe_driver 125ms, probe_toolkits",
        "  62ms, probes_total 500ms",
    ]


def test_console_print_wraps_to_the_width_unless_told_not_to():
    from gpudoctor.render.textconsole import TextConsole

    out = io.StringIO()
    console = TextConsole(out, width=10, styled=False)
    console.print("aaaa bbbb cccc")
    console.print("aaaa bbbb cccc", soft_wrap=True)
    assert out.getvalue() == "aaaa bbbb \ncccc\naaaa bbbb cccc\n"


def test_an_inline_code_span_starting_or_ending_with_a_backtick_is_padded():
    from gpudoctor.render.markdown import code_span

    # CommonMark 6.1: one space is stripped from each side of a span, so padding keeps a backtick at an end
    # from joining the fence.
    assert [code_span("`x"), code_span("x`"), code_span("x"), code_span("a``b")] == [
        "`` `x ``",
        "`` x` ``",
        "`x`",
        "```a``b```",
    ]


# --- chunk 11 ----------------------------------------------------------------------------------------------


def test_loading_lines_say_a_library_the_loader_misses_where_copies_exist_and_skip_one_with_none():
    from gpudoctor.facts import ElfObject, FrameworkLoading, LibraryCopy, LibraryResolution, LoadingFacts
    from gpudoctor.render.terminal import loading_lines

    # libcudnn.so.9: no copy on the loader's path, but one elsewhere on disk (present at ...); libnvrtc.so.12:
    # dlopen()ed by name, found nowhere: not listed here (the findings say it); libcublas.so.12 loads.
    loads = (
        LibraryResolution("libcublas.so.12", "/opt/lib/libcublas.so.12", "RUNPATH of libtorch.so", version="12.1.3.1"),
        LibraryResolution(
            "libcudnn.so.9", None, None, copies=(LibraryCopy("/srv/cudnn/libcudnn.so.9", "not searched", "9.1.0"),)
        ),
        LibraryResolution("libnvrtc.so.12", None, None, how="dlopen"),
    )
    fl = FrameworkLoading(
        "torch", (ElfObject("/opt/lib/libtorch.so"),), loads, static=("libcudart",), unread=("/x.so: truncated",)
    )
    facts = report_of("p100-driver510-torch-cu121").facts
    facts = dataclasses.replace(facts, loading=LoadingFacts(None, (), (), (), (fl,)))
    assert loading_lines(facts) == [
        "Library loading for torch (read: /opt/lib/libtorch.so):",
        "libcublas.so.12: /opt/lib/libcublas.so.12 (RUNPATH of libtorch.so, 12.1.3.1)",
        "libcudnn.so.9: the loader finds none; present at /srv/cudnn/libcudnn.so.9 (not searched, 9.1.0)",
        "libcudart: linked into torch's own library (no DT_NEEDED names it)",
        "unread: /x.so: truncated",
    ]
    assert loading_lines(dataclasses.replace(facts, loading=None)) == []


def test_a_shell_switch_keeps_the_users_entries_under_a_shared_prefix_and_drops_a_dedicated_trees_others():
    from gpudoctor.facts import Toolkit

    # A conda environment's CUDA: its prefix holds everything else of the environment, so only the toolkit's bin is
    # put first and the environment's other entries stay. A tree dedicated to CUDA: its other entries go.
    conda = Toolkit("/home/u/conda/envs/ml", "12.4.131", "conda-meta", ("CONDA_PREFIX",), None, True)
    env = {"PATH": "/home/u/conda/envs/ml/condabin:/usr/bin", "LD_LIBRARY_PATH": "/home/u/conda/envs/ml/lib/extra"}
    assert sc.shell_environment(env, conda, "/home/u/conda/envs/ml/lib", ()) == (
        ("CUDA_HOME", "/home/u/conda/envs/ml"),
        ("PATH", "/home/u/conda/envs/ml/bin:/home/u/conda/envs/ml/condabin:/usr/bin"),
        ("LD_LIBRARY_PATH", "/home/u/conda/envs/ml/lib:/home/u/conda/envs/ml/lib/extra"),
    )
    sdk = Toolkit("/home/u/sdk/cuda-12.5", "12.5.40", "version.json", ("CUDA_HOME",), None, True)
    env = {"PATH": "/home/u/sdk/cuda-12.5/nsight/bin:/usr/bin", "LD_LIBRARY_PATH": "/home/u/sdk/cuda-12.5/extras/lib"}
    assert sc.shell_environment(env, sdk, "/home/u/sdk/cuda-12.5/lib64", ()) == (
        ("CUDA_HOME", "/home/u/sdk/cuda-12.5"),
        ("PATH", "/home/u/sdk/cuda-12.5/bin:/usr/bin"),
        ("LD_LIBRARY_PATH", "/home/u/sdk/cuda-12.5/lib64"),
    )


# --- chunk 12 ----------------------------------------------------------------------------------------------


def test_markdown_error_says_the_doctor_could_not_run_with_its_hint():
    from gpudoctor.render.markdown import render_markdown_error

    assert render_markdown_error("snapshot <x> unreadable", "record one with: gpudoctor snapshot") == (
        "**gpudoctor could not run**: `snapshot <x> unreadable`\n\n`record one with: gpudoctor snapshot`\n"
    )
    assert render_markdown_error("x", None) == "**gpudoctor could not run**: `x`\n"


def test_the_heading_hangs_two_columns_in_on_a_narrow_terminal():
    assert render("p100-driver510-torch-cu121", width=10).splitlines()[:2] == ["gpudoctor check", "  (replayed snapshot)"]


def test_format_characters_and_enclosing_marks_take_no_cell():
    from gpudoctor.render.textconsole import char_cells

    # U+200B ZERO WIDTH SPACE (Cf) and U+20DD COMBINING ENCLOSING CIRCLE (Me) have combining class 0, yet show no
    # cell of their own (wcwidth 0), as rich counts them.
    assert (char_cells("\u200b"), char_cells("\u20dd"), char_cells("\u0301")) == (0, 0, 0)
