"""What the renderers print, at the edges the suite left unguarded (tools/mutate.py survivors: docs/testing.md).

Replayed machines (tests/machines/), each rendered in one format, the expected text worked out by hand:
- Prometheus text format 0.0.4 (https://prometheus.io/docs/instrumenting/exposition_formats/): one sample per
  framework and per cuDNN found, with the facts of the JSON report as labels.
- Node Problem Detector custom plugins (https://github.com/kubernetes/node-problem-detector/blob/master/docs/custom_plugin_monitor.md):
  exit status 0 is OK, 1 a problem, 2 unknown; the output is the condition's message.
- GitHub Flavored Markdown tables (https://github.github.com/gfm/#tables-extension-): a `|` splits a cell even
  inside a code span unless escaped as `\\|`.
- JUnit XML attributes are one line each (failure messages and test names are shown as one line by CI
  readers); xml_text(newlines=False) shows a line feed as an escape.
"""

from __future__ import annotations

import dataclasses
import re
import xml.etree.ElementTree as ET

from gpudoctor.model import ExitCode
from gpudoctor.render.github import render_github_summary
from gpudoctor.render.json_report import report_document
from gpudoctor.render.junit import render_junit
from gpudoctor.render.markdown import render_markdown
from gpudoctor.render.nfd import npd_status, render_npd
from gpudoctor.render.prometheus import render_prometheus
from gpudoctor.render.terminal import EVIDENCE_CHARS, loading_lines, render_finding, shorten
from gpudoctor.render.textconsole import TextConsole
from tests.unit.test_render_terminal import _Terminal
from tests.unit.test_rule_edges_survivors import report_of

# JAX 0.6.0 with its CUDA 12 plugin; cuDNN 9.1.0 in /usr/local/cuda-12.4/lib64 (on LD_LIBRARY_PATH) shadows the
# nvidia-cudnn-cu12 9.8.0.87 wheel the plugin's RUNPATH names (tests/machines/<this>/machine.toml).
JAX_MACHINE = "rtx3060-jax-cudnn-shadowed-by-ld-library-path"


# --- Prometheus --------------------------------------------------------------------------------------------


def test_prometheus_names_jax_and_each_cudnn_with_its_kind():
    report = report_of(JAX_MACHINE)
    text = render_prometheus(report_document(report, ExitCode.FINDINGS), timestamp=1.5e9)
    samples = text.splitlines()
    # JAX's own version; the CUDA a JAX build was made for is not a fact the probe reads (empty label).
    assert 'gpudoctor_framework_info{framework="jax",version="0.6.0",cuda="",rocm=""} 1' in samples
    # Both copies, each with what it is: a system library and a pip wheel.
    assert 'gpudoctor_cudnn_info{version="9.1.0",kind="library",path="/usr/local/cuda-12.4/lib64/libcudnn.so.9.1.0"} 1' in samples
    assert 'gpudoctor_cudnn_info{version="9.8.0.87",kind="wheel",path="dist:nvidia-cudnn-cu12"} 1' in samples


# --- NPD ---------------------------------------------------------------------------------------------------


def test_npd_says_ok_for_a_healthy_node_and_names_the_worst_finding_otherwise():
    healthy = report_document(report_of("h100x8-driver565-torch221-cu121"), ExitCode.OK)
    assert (npd_status(healthy), render_npd(healthy)) == (0, "gpudoctor: healthy\n")
    sick = report_document(report_of("p100-driver510-torch-cu121"), ExitCode.FINDINGS)
    assert npd_status(sick) == 1
    assert (
        render_npd(sick) == "framework-driver-too-old: PyTorch 2.2.1+cu121 needs CUDA 12.1, which driver 510.47.03 cannot run\n"
    )
    assert npd_status({"exit_code": 3, "error": {"message": "snapshot unreadable"}}) == 2


# --- GitHub step summary -----------------------------------------------------------------------------------


def _cells(row: str) -> list[str]:
    """A GFM table row's cells: split at every `|` not escaped with a backslash."""
    return [c.strip() for c in re.split(r"(?<!\\)\|", row.strip())[1:-1]]


def test_a_fix_command_with_a_pipe_stays_in_its_table_cell():
    # driver-unreachable's fix runs `dmesg | grep -i -E 'nvrm|xid'`: unescaped, either `|` would end the Fix cell.
    text = render_github_summary(report_of("h100-driver-unreachable"), exit_code=ExitCode.FINDINGS)
    (row,) = [line for line in text.splitlines() if "`driver-unreachable`" in line]
    cells = _cells(row)
    assert len(cells) == 4
    assert "<br>`sudo dmesg \\| grep -i -E 'nvrm\\|xid'`<br>" in cells[3]


def test_the_summary_names_the_jax_installed():
    # The machine line under the heading: GPUs, driver, then each framework found (here JAX alone).
    text = render_github_summary(report_of(JAX_MACHINE), exit_code=ExitCode.FINDINGS)
    assert "`GPU 1 × NVIDIA GeForce RTX 3060; driver 570.124.04 (CUDA 12.8); jax 0.6.0`" in text.splitlines()


# --- JUnit -------------------------------------------------------------------------------------------------


def test_a_junit_failure_message_is_one_line_whatever_the_finding_says():
    # Machine data in a title (a GPU name, a path) can hold a line feed; the failure's message attribute stays one
    # line, the line feed shown as an escape, and the title's words all there.
    report = report_of("p100-driver510-torch-cu121")
    first = report.findings[0]
    odd = dataclasses.replace(first, title="PyTorch 2.2.1+cu121 needs CUDA 12.1,\nwhich driver 510.47.03 cannot run")
    report = dataclasses.replace(report, findings=[odd, *report.findings[1:]])
    doc = ET.fromstring(render_junit(report, exit_code=ExitCode.FINDINGS))
    (failure,) = doc.iter("failure")
    message = failure.get("message", "")
    assert "\n" not in message
    assert message.startswith("[framework-driver-too-old] PyTorch 2.2.1+cu121 needs CUDA 12.1,")
    assert message.endswith("which driver 510.47.03 cannot run")


# --- the terminal ------------------------------------------------------------------------------------------


def test_verbose_loading_lines_name_the_shadowed_copy_after_the_one_that_wins():
    # The loader takes LD_LIBRARY_PATH's cuDNN first; the wheel the plugin's RUNPATH names is the one it misses.
    lines = loading_lines(report_of(JAX_MACHINE).facts)
    assert (
        "libcudnn.so.9 [dlopen]: /usr/local/cuda-12.4/lib64/libcudnn.so.9 (LD_LIBRARY_PATH, 9.1.0); also "
        "/home/user/venv/lib/python3.11/site-packages/nvidia/cudnn/lib/libcudnn.so.9 (RUNPATH of xla_cuda_plugin.so, 9.8.0.87)"
    ) in lines


def test_a_wrapped_finding_hangs_under_its_first_word():
    # At 60 columns the title wraps: its next line starts under the title's first word, after the glyph and a space
    # (2 columns). An evidence line too long for the width continues 2 columns in, like the Fix line's text.
    out = _Terminal("utf-8")
    console = TextConsole(out, width=60, styled=False)
    render_finding(console, report_of("p100-driver510-torch-cu121").findings[0], verbose=True)
    lines = out.getvalue().splitlines()
    assert lines[:2] == [
        "    ✗ PyTorch 2.2.1+cu121 needs CUDA 12.1, which driver",
        "      510.47.03 cannot run (framework-driver-too-old)",
    ]
    at = lines.index("      evidence:")
    assert lines[at + 1 : at + 3] == [
        "        file:/usr/lib/python3/dist-packages/torch/version.py",
        "        : PyTorch 2.2.1+cu121: CUDA 12.1",
    ]


def test_a_long_evidence_value_is_cut_to_the_limit_with_an_ellipsis():
    # The limit is what is shown: EVIDENCE_CHARS characters in all, the last one "…"; a value that fits is whole.
    long = "x" * (EVIDENCE_CHARS + 10)
    cut = shorten(long, EVIDENCE_CHARS)
    assert (len(cut), cut[-1], cut[:-1]) == (EVIDENCE_CHARS, "…", "x" * (EVIDENCE_CHARS - 1))
    assert shorten("x" * EVIDENCE_CHARS, EVIDENCE_CHARS) == "x" * EVIDENCE_CHARS


# --- Markdown (an issue reply) -----------------------------------------------------------------------------


def test_markdown_lists_each_finding_and_the_plan_with_its_commands():
    text = render_markdown(report_of("p100-driver510-torch-cu121"), ExitCode.FINDINGS)
    lines = text.splitlines()
    assert "**1 error(s), 0 warning(s)**" in lines
    assert (
        "- **Error** `framework-driver-too-old`: `PyTorch 2.2.1+cu121 needs CUDA 12.1, which driver 510.47.03 cannot run`"
        in lines
    )
    assert "  - `cmd:nvidia-smi`: `driver 510.47.03`" in lines  # evidence as code spans (no autolink)
    # The plan: PyTorch 2.2.1+cu118 runs on driver 510 (CUDA 11 minor-version compatibility), as a numbered step
    # whose commands are a fenced block, copied as they are.
    at = lines.index("#### What to do")
    assert lines[at + 2] == "1. **`PyTorch`**"
    block = lines.index("   ```sh")
    assert lines[block + 1 : block + 5] == [
        "   /usr/bin/python3 -m pip install torch==2.2.1+cu118 --index-url https://download.pytorch.org/whl/cu118",
        "   /usr/bin/python3 -m pip uninstall -y nvidia-cublas-cu12 nvidia-cuda-runtime-cu12 nvidia-cudnn-cu12",
        "   /usr/bin/python3 -m pip install --force-reinstall torch==2.2.1+cu118 --index-url "
        "https://download.pytorch.org/whl/cu118",
        "   ```",
    ]


# --- more edges (the sample of the run with function-scoped ids) ---------------------------------------------


def test_prometheus_names_each_toolkit_installed():
    # One CUDA 13.0 toolkit (pip-assembled) in /usr/local/cuda-13.0 on the Quadro P2000 machine.
    report = report_of("quadro-p2000-driver525-cuda13-toolkit")
    text = render_prometheus(report_document(report, ExitCode.FINDINGS), timestamp=1.5e9)
    assert [line for line in text.splitlines() if line.startswith("gpudoctor_cuda_toolkit_info")] == [
        'gpudoctor_cuda_toolkit_info{version="13.0.88",path="/usr/local/cuda-13.0"} 1'
    ]


def _npd_doc(title: str, more: int) -> dict:
    findings = [{"code": "gpu-ecc-errors", "severity": "error", "title": title}]
    findings += [{"code": "pcie-link-degraded", "severity": "warning", "title": "x8"}] * more
    return {"exit_code": 1, "findings": findings}


def test_a_long_npd_line_is_cut_to_the_limit_keeping_the_count_of_the_others():
    # NPD shows at most max_output_length characters (160 here): the title is cut with "…", never the count.
    line = render_npd(_npd_doc("A" * 300, 2), max_chars=160)
    assert line.endswith("…" + " (+2 more)\n") and len(line) == 160 + 1
    # Alone, the line itself is cut: 159 characters and "…".
    alone = render_npd(_npd_doc("A" * 300, 0), max_chars=160)
    assert alone == ("gpu-ecc-errors: " + "A" * 300)[:159] + "…\n"


def test_junit_is_indented_one_element_a_line_and_every_hostname_is_one_line():
    report = report_of("p100-driver510-torch-cu121")
    outcomes = evaluate_one(report, "gpus>=1")
    text = render_junit(report, outcomes, node="node-7\nevil")
    lines = text.splitlines()
    # ET.indent: nested elements two spaces deeper each, so the file reads (and diffs) line by line.
    assert lines[1].startswith("<testsuites ") and lines[2].startswith("  <testsuite ") and lines[3] == "    <properties>"
    suites = list(ET.fromstring(text).iter("testsuite"))
    assert [s.get("name") for s in suites] == ["gpudoctor.checks", "gpudoctor.checks.requirements"]
    assert all("\n" not in (s.get("hostname") or "\n") for s in suites)


def evaluate_one(report, spec):
    from gpudoctor.checks.requirements import evaluate, parse_requirements

    return evaluate(parse_requirements([spec]), report.facts, report.findings)


def test_markdown_escapes_a_bare_www_address():
    from gpudoctor.render.markdown import text

    # GitHub turns "www.example.com" into a link even without a scheme, and `_www.x` too: a code span keeps it text.
    assert text("see www.example.com") == "`see www.example.com`"
    assert text("_www.x") == "`_www.x`"


def test_markdown_of_pasted_text_says_so_and_shows_at_most_four_evidence_lines():
    report = report_of("p100-driver510-torch-cu121")
    first = report.findings[0]
    many = dataclasses.replace(first, evidence=first.evidence * 3)  # six evidence lines
    report = dataclasses.replace(report, findings=[many, *report.findings[1:]])
    lines = render_markdown(report, ExitCode.FINDINGS, pasted={}).splitlines()
    assert lines[2] == "Read from the pasted text; what it did not show is treated as unknown, not as missing."
    assert sum(1 for line in lines if line.startswith("  - ")) == 4


def test_a_command_with_a_line_feed_stays_one_line():
    from gpudoctor.render.terminal import command

    # A command is printed whole on one line; a line feed in it (from machine data) is shown, not obeyed.
    out = _Terminal("utf-8")
    command(TextConsole(out, width=80, styled=False), "echo a\nb", "  ")
    assert out.getvalue() == "  echo a\\x0ab\n"


def test_a_plan_step_says_where_it_runs():
    # A container started without GPUs: the fix is on the host, and the step says so.
    from tests.unit.test_render_terminal import render

    assert "  1. container runtime (on the host) container-no-gpu" in render("docker-started-without-gpus").splitlines()


def test_verbose_prints_the_loading_lines_with_a_hanging_indent():
    from tests.unit.test_render_terminal import render

    lines = render(JAX_MACHINE, verbose=True, width=100).splitlines()
    at = lines.index("  libcublas.so.12 [dlopen]:")
    # Continuation lines 4 columns deeper than the library's name, under `-v`.
    assert lines[at + 1] == "      /home/user/venv/lib/python3.11/site-packages/nvidia/cublas/lib/libcublas.so.12 (RUNPATH of"


def test_a_driver_version_not_recorded_still_shows_the_cuda_it_supports():
    # A pasted report: NVML's CUDA version (13.1) and the GPUs are known, the driver's version and the kernel
    # module's are not. The summary says what is known.
    from gpudoctor.probed import Absent
    from gpudoctor.render.terminal import area_summaries
    from tests.unit.test_rule_edges_queries import facts_of

    facts = facts_of("rtx2070x2-cpu-builds")
    driver = dataclasses.replace(facts.driver, nvml_driver_version=None, smi_driver_version=None)
    kernel = dataclasses.replace(facts.kernel, proc_driver=Absent("not in the pasted text"))
    facts = dataclasses.replace(facts, driver=driver, kernel=kernel)
    assert area_summaries(facts)["driver"] == "version not recorded (supports CUDA 13.1)"


def test_a_deep_reply_that_is_not_an_object_is_left_out():
    # facts.frameworks.deep holds the import script's JSON as it came; a reply that is not an object (a hand-edited
    # snapshot) has nothing to show.
    from gpudoctor.render.terminal import deep_lines
    from tests.unit.test_rule_edges_queries import facts_of

    facts = facts_of("rtx2070x2-cpu-builds")
    facts = dataclasses.replace(facts, frameworks=dataclasses.replace(facts.frameworks, deep={"torch": "garbage"}))
    assert deep_lines(facts) == []


def test_junit_for_a_doctor_that_failed_is_one_errored_case_indented():
    from gpudoctor.render.junit import render_junit_error

    text = render_junit_error("snapshot unreadable: x\nsecond", "check the file")
    lines = text.splitlines()
    assert lines[2] == '  <testsuite name="gpudoctor.checks" tests="1" failures="0" errors="1" skipped="0" time="0">'
    (error,) = ET.fromstring(text).iter("error")
    # The message attribute is the first line; the text keeps every line and the hint.
    assert error.get("message") == "snapshot unreadable: x"
    assert error.text == "snapshot unreadable: x\nsecond\nhint: check the file"
