"""`gpudoctor check --require ... --format text|json|github|junit` on replayed machines: exit codes and output."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from tests.cli.conftest import machine, machine_variant

A = machine("rtx4090-torch-cu121")  # healthy: RTX 4090, driver 535.86.05 / CUDA 12.2, torch 2.2.1+cu121
B = machine("rtx2070x2-cpu-builds")  # 2x RTX 2070 (CC 7.5, 8 GiB), driver 590.44.01 / CUDA 13.1, CPU builds
T4 = machine("t4-tf-jax")  # Tesla T4, driver 515.105.01 / CUDA 11.7, TF 2.11 GPU, jax 0.4.13 CUDA 11 jaxlib
NODRV = machine("no-driver")  # RTX 3060 on the bus, no driver

ALL_MET_ON_A = "gpu driver>=535 cuda>=12.1 cc>=8.9 gpu-memory>=23GiB gpu-memory-free>=23GiB torch>=2.2,<2.3 torch:cuda bf16"


def _json(result) -> dict:
    return json.loads(result.stdout)


def _reqs(doc: dict) -> list[tuple[str, bool, str]]:
    return [(r["spec"], r["met"], r["found"]) for r in doc["requirements"]]


# --------------------------------------------------------------------------- text


@pytest.mark.typer_rich
def test_text_all_requirements_met_exit_0(gd):
    r = gd("check", "--replay", A, "--require", ALL_MET_ON_A)
    assert r.exit_code == 0, r.output
    assert r.stdout.endswith(
        "✓ No problems found.\n"
        "Requirements: 9 of 9 met\n"
        "  met     gpu: 1 GPU(s): NVIDIA GeForce RTX 4090\n"
        "  met     driver>=535: driver 535.86.05\n"
        "  met     cuda>=12.1: the driver (535.86.05) supports CUDA 12.2\n"
        "  met     cc>=8.9: GPU 0 (NVIDIA GeForce RTX 4090): compute capability 8.9\n"
        "  met     gpu-memory>=23GiB: GPU 0 (NVIDIA GeForce RTX 4090): 23.99 GiB total\n"
        "  met     gpu-memory-free>=23GiB: GPU 0 (NVIDIA GeForce RTX 4090): 23.65 GiB free\n"
        "  met     torch>=2.2,<2.3: torch 2.2.1+cu121 in /opt/venv/bin/python\n"
        "  met     torch:cuda: torch 2.2.1+cu121 (CUDA 12.1)\n"
        "  met     bf16: GPU 0 (NVIDIA GeForce RTX 4090): compute capability 8.9, BF16 supported\n"
    )


def test_text_unmet_requirement_is_an_error_finding_exit_1(gd):
    r = gd("check", "--replay", A, "-r", "driver>=550", "-r", "gpu-memory>=24GiB")
    assert r.exit_code == 1, r.output
    assert "✗ requirement not met: driver>=550 (requirement-unmet)" in r.stdout
    assert "This job requires driver>=550; found: driver 535.86.05." in r.stdout
    assert "✗ requirement not met: gpu-memory>=24GiB (requirement-unmet)" in r.stdout
    assert r.stdout.endswith(
        "2 error(s), 0 warning(s), 0 note(s). Details of any code: gpudoctor explain CODE\n"
        "Requirements: 0 of 2 met\n"
        "  NOT MET driver>=550: driver 535.86.05\n"
        "  NOT MET gpu-memory>=24GiB: GPU 0 (NVIDIA GeForce RTX 4090): 23.99 GiB total\n"
    )


def test_no_requirements_keeps_the_plain_check(gd):
    r = gd("check", "--replay", A)
    assert r.exit_code == 0
    assert "Requirements" not in r.stdout
    doc = _json(gd("check", "--replay", A, "--format", "json"))
    assert "requirements" not in doc and "node" not in doc


# --------------------------------------------------------------------------- every kind of spec (JSON)


def test_json_every_kind_on_two_turing_gpus_with_cpu_builds(gd):
    specs = (
        "gpu gpus==2 gpus>=4 driver>=590 driver<590 cuda>=13.0 cuda>=13.2 cc>=7.5 compute-capability>=8.0 "
        "gpu-memory>=7GiB gpu-memory>=10GiB gpu-memory-free>=7.5GiB gpu-memory>=8GB torch>=2.13 torch~=2.14 "
        "torch:cuda tensorflow:gpu jax:cuda bf16 tensorflow>=2.20 jax"
    )
    r = gd("check", "--replay", B, "--format", "json", "--fail-on", "error", "--require", specs)
    assert r.exit_code == 1
    doc = _json(r)
    g0, g1 = "GPU 0 (NVIDIA GeForce RTX 2070)", "GPU 1 (NVIDIA GeForce RTX 2070)"
    assert _reqs(doc) == [
        ("gpu", True, "2 GPU(s): NVIDIA GeForce RTX 2070"),
        ("gpus==2", True, "2 GPU(s)"),
        ("gpus>=4", False, "2 GPU(s)"),
        ("driver>=590", True, "driver 590.44.01"),
        ("driver<590", False, "driver 590.44.01"),
        ("cuda>=13.0", True, "the driver (590.44.01) supports CUDA 13.1"),
        ("cuda>=13.2", False, "the driver (590.44.01) supports CUDA 13.1"),
        ("cc>=7.5", True, f"{g0}: compute capability 7.5; {g1}: compute capability 7.5"),
        ("compute-capability>=8.0", False, f"{g0}: compute capability 7.5; {g1}: compute capability 7.5"),
        ("gpu-memory>=7GiB", True, f"{g0}: 8.00 GiB total; {g1}: 8.00 GiB total"),
        ("gpu-memory>=10GiB", False, f"{g0}: 8.00 GiB total; {g1}: 8.00 GiB total"),
        ("gpu-memory-free>=7.5GiB", True, f"{g0}: 7.60 GiB free; {g1}: 7.60 GiB free"),
        ("gpu-memory>=8GB", True, f"{g0}: 8.00 GiB total; {g1}: 8.00 GiB total"),
        ("torch>=2.13", True, "torch 2.13.0+cpu in /home/user/.venvs/ml/bin/python"),
        ("torch~=2.14", False, "torch 2.13.0+cpu in /home/user/.venvs/ml/bin/python"),
        ("torch:cuda", False, "torch 2.13.0+cpu is a CPU-only build"),
        ("tensorflow:gpu", False, "tensorflow-cpu 2.21.0 is a CPU-only build"),
        ("jax:cuda", False, "jax 0.4.38 has no CUDA plugin (CPU only)"),
        ("bf16", False, f"{g0}: compute capability 7.5, BF16 not supported; {g1}: compute capability 7.5, BF16 not supported"),
        ("tensorflow>=2.20", True, "tensorflow-cpu 2.21.0 in /home/user/.venvs/ml/bin/python"),
        ("jax", True, "jax 0.4.38 in /home/user/.venvs/ml/bin/python"),
    ]
    assert {r["area"] for r in doc["requirements"] if r["spec"].startswith("gpu-memory")} == {"memory"}
    unmet = [f for f in doc["findings"] if f["code"] == "requirement-unmet"]
    assert sorted(f["title"] for f in unmet) == sorted(f"requirement not met: {s}" for s, met, _ in _reqs(doc) if not met)
    assert all(f["severity"] == "error" for f in unmet)
    bf16 = next(f for f in unmet if f["title"].endswith(": bf16"))
    assert bf16["area"] == "gpu"
    assert "compute capability 8.0 or newer" in bf16["remediation"]["summary"]
    torch = next(f for f in unmet if f["title"].endswith(": torch:cuda"))
    assert torch["area"] == "frameworks"
    # The planner's choice (gpudoctor install's): the installed 2.13.0 as its CUDA build for this driver,
    # in the probed interpreter, from the variant's own index.
    assert torch["remediation"]["component"] == "torch"
    assert all(c["argv"][0] == "/home/user/.venvs/ml/bin/python" for c in torch["remediation"]["argv"])
    assert any(
        c["argv"][-3:] == ["torch==2.13.0+cu130", "--index-url", "https://download.pytorch.org/whl/cu130"]
        for c in torch["remediation"]["argv"]
    )
    assert doc["exit_code"] == 1


def test_json_framework_builds_that_can_use_the_gpu(gd):
    r = gd(
        "check",
        "--replay",
        T4,
        "--format",
        "json",
        "--fail-on",
        "error",
        "-r",
        "tensorflow:gpu",
        "-r",
        "jax:cuda",
        "-r",
        "gpu-memory>=15GiB",
    )
    assert r.exit_code == 0, r.stdout
    assert _reqs(_json(r)) == [
        ("tensorflow:gpu", True, "tensorflow 2.11.0 (CUDA 11.2)"),
        ("jax:cuda", True, "jax 0.4.13 with jaxlib 0.4.13+cuda11.cudnn86"),
        ("gpu-memory>=15GiB", True, "GPU 0 (Tesla T4): 15.00 GiB total"),
    ]


def _ldconfig_fails(snap: dict) -> None:
    # `ldconfig -p` fails: the doctor says it could not see the loader cache (probe-failed, a warning).
    snap["commands"]["ldconfig -p"] = {"rc": 1, "stdout": "", "stderr": "ldconfig: Can't open cache file /etc/ld.so.cache\n"}


def test_fail_on_decides_between_warnings_and_errors(gd, tmp_path):
    path = machine_variant(tmp_path, "rtx4090-torch-cu121", _ldconfig_fails)
    assert gd("check", "--replay", path, "-r", "gpu", "--fail-on", "error").exit_code == 0
    assert gd("check", "--replay", path, "-r", "gpu", "--fail-on", "warning").exit_code == 1
    assert gd("check", "--replay", path, "-r", "gpu").exit_code == 1  # warning is the default
    assert gd("check", "--replay", path, "-r", "torch:cuda", "--ignore", "probe-failed").exit_code == 0
    assert gd("check", "--replay", path, "-r", "tensorflow", "--fail-on", "error").exit_code == 1


def test_json_no_driver_fails_closed(gd):
    r = gd("check", "--replay", NODRV, "--format", "json", "-r", "gpu driver>=535 cuda>=12 torch:cuda bf16 gpu-memory>=1GiB")
    assert r.exit_code == 1
    no_gpu = "no GPU: the NVIDIA driver is not reachable (see the driver findings)"
    assert _reqs(_json(r)) == [
        ("gpu", False, no_gpu),
        (
            "driver>=535",
            False,
            "no driver version: the NVIDIA driver is not reachable (NVML: library_not_found, nvidia-smi: missing)",
        ),
        ("cuda>=12", False, "unknown: the NVIDIA driver is not reachable, so the CUDA version it supports cannot be read"),
        ("torch:cuda", False, f"torch 2.2.1+cu121 (CUDA 12.1), but {no_gpu}"),
        ("bf16", False, no_gpu),
        ("gpu-memory>=1GiB", False, no_gpu),
    ]


def test_cuda_visible_devices_limits_the_gpus_counted(gd, tmp_path):
    path = machine_variant(tmp_path, "rtx2070x2-cpu-builds", lambda s: s["env"].update(CUDA_VISIBLE_DEVICES="1"))
    r = gd("check", "--replay", path, "--format", "json", "-r", "gpus==1", "-r", "gpus>=2")
    assert _reqs(_json(r)) == [
        ("gpus==1", True, "1 GPU(s) (CUDA_VISIBLE_DEVICES=1 of 2)"),
        ("gpus>=2", False, "1 GPU(s) (CUDA_VISIBLE_DEVICES=1 of 2)"),
    ]


def test_ignore_requirement_unmet_keeps_the_verdict_but_not_the_exit_code(gd):
    r = gd("check", "--replay", A, "--format", "json", "-r", "driver>=550", "--ignore", "requirement-unmet")
    assert r.exit_code == 0
    doc = _json(r)
    assert _reqs(doc) == [("driver>=550", False, "driver 535.86.05")]
    assert doc["findings"] == [] and doc["status"] == "healthy"


def test_node_name_only_when_asked_under_replay(gd):
    doc = _json(gd("check", "--replay", A, "--format", "json", "--node", "gpu-07"))
    assert doc["node"] == "gpu-07"


# --------------------------------------------------------------------------- usage errors


@pytest.mark.typer_rich
@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("driver>=abc", "malformed version condition '>=abc' in 'driver>=abc'"),
        ("driver 535", "malformed requirement '535': it must start with a name such as driver, gpus or torch"),
        ("drvier>=535", "unknown requirement 'drvier' in 'drvier>=535' (did you mean 'driver'?)"),
        ("gpu-memory>=40", "malformed size condition '>=40' in 'gpu-memory>=40'"),
        ("gpu-memory>=40XB", "unknown size unit 'XB' in 'gpu-memory>=40XB'"),
        ("gpu-memory", "'gpu-memory' needs a size, such as gpu-memory>=40GiB"),
        ("bf16>=1", "'bf16' takes no condition, but 'bf16>=1' has '>=1'"),
        ("torch:cuda>=12", "'torch:cuda' takes no condition"),
        ("gpus>=2.5", "'gpus>=2.5': a GPU count is a whole number, not '2.5'"),
        ("torch>>2", "malformed version condition '>>2' in 'torch>>2'"),
        ("torch~=2", "malformed version condition '~=2' in 'torch~=2'"),
        ("", "empty requirement"),
        ("=>2", "malformed requirement '=>2'"),
    ],
)
def test_malformed_spec_is_a_usage_error(gd, spec, message):
    r = gd("check", "--replay", A, "--require", spec, "--format", "json")
    assert r.exit_code == 2
    assert r.stdout == ""
    assert "Invalid value for '--require'" in r.stderr
    assert message in " ".join(r.stderr.split())


@pytest.mark.typer_rich
def test_malformed_spec_through_the_real_entry_point_has_no_traceback():
    proc = subprocess.run(
        [sys.executable, "-m", "gpudoctor", "check", "--replay", A, "--require", "cuda>=twelve"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert "malformed version condition '>=twelve' in 'cuda>=twelve'" in " ".join(proc.stderr.split())


# --------------------------------------------------------------------------- github


@pytest.mark.typer_rich
def test_github_exact_output_and_summary(gd, tmp_path):
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n", encoding="utf-8")
    r = gd(
        "check",
        "--replay",
        A,
        "--format",
        "github",
        "--node",
        "ci-runner-1",
        "-r",
        "gpu driver>=550 torch:cuda",
        env={"GITHUB_STEP_SUMMARY": str(summary)},
    )
    assert r.exit_code == 1
    assert r.stdout == (
        "::error title=requirement-unmet::requirement not met: driver>=550%0A"
        "This job requires driver>=550; found: driver 535.86.05.%0A"
        "Fix: Install an NVIDIA driver that satisfies driver>=550, then reboot.%0A"
        # (Debian 12: cuda-drivers-550 is only in NVIDIA's repository, which its keyring adds first; h231)
        "  wget https://developer.download.nvidia.com/compute/cuda/repos/debian12/x86_64/cuda-keyring_1.1-1_all.deb%0A"
        "  # adds NVIDIA\u2019s CUDA repository and its signing key%0A"
        "  sudo dpkg -i cuda-keyring_1.1-1_all.deb%0A"
        "  sudo apt-get update%0A"
        "  # NVIDIA\u2019s CUDA repository%0A"
        "  sudo apt-get install -y cuda-drivers-550%0A"
        "  sudo reboot\n"
        "gpudoctor: requirement met: gpu (1 GPU(s): NVIDIA GeForce RTX 4090)\n"
        "gpudoctor: requirement met: torch:cuda (torch 2.2.1+cu121 (CUDA 12.1))\n"
        "gpudoctor: 1 error(s), 0 warning(s), 0 note(s); 2 of 3 requirement(s) met; exit status 1\n"
    )
    assert summary.read_text(encoding="utf-8") == (
        "earlier step\n"
        "## gpudoctor check: ❌ 1 error(s), 0 warning(s), 0 note(s)\n"
        "\n"
        "Node `ci-runner-1`: `GPU 1 × NVIDIA GeForce RTX 4090; driver 535.86.05 (CUDA 12.2); torch 2.2.1+cu121 (CUDA 12.1)`\n"
        "\n"
        "### Requirements\n"
        "\n"
        "| | Requirement | Found |\n"
        "|---|---|---|\n"
        "| ✅ | `gpu` | `1 GPU(s): NVIDIA GeForce RTX 4090` |\n"
        "| ❌ | `driver>=550` | `driver 535.86.05` |\n"
        "| ✅ | `torch:cuda` | `torch 2.2.1+cu121 (CUDA 12.1)` |\n"
        "\n"
        "### Findings\n"
        "\n"
        "| Severity | Code | Finding | Fix |\n"
        "|---|---|---|---|\n"
        "| error | `requirement-unmet` | `requirement not met: driver>=550` | `Install an NVIDIA driver that satisfies "
        "driver>=550, then reboot.`<br>`wget https://developer.download.nvidia.com/compute/cuda/repos/debian12/x86_64/"
        "cuda-keyring_1.1-1_all.deb`<br>`# adds NVIDIA\u2019s CUDA repository and its signing key`<br>"
        "`sudo dpkg -i cuda-keyring_1.1-1_all.deb`<br>`sudo apt-get update`<br>`# NVIDIA\u2019s CUDA repository`<br>`sudo apt-get install -y cuda-drivers-550`"
        "<br>`sudo reboot` |\n"
        "\n"
        "Exit status 1 (fails on warning and above). Details of any code: `gpudoctor explain CODE`.\n"
    )


def test_github_healthy_without_summary_variable(gd):
    r = gd("check", "--replay", A, "--format", "github")
    assert r.exit_code == 0
    assert r.stdout == "gpudoctor: 0 error(s), 0 warning(s), 0 note(s); exit status 0\n"


def test_github_escapes_percent_newlines_colons_and_commas_in_real_findings(gd, tmp_path):
    # A CUDA_VISIBLE_DEVICES that names no GPU: its value, with a literal "%0A" and a comma, lands in the finding.
    path = machine_variant(tmp_path, "rtx4090-torch-cu121", lambda s: s["env"].update(CUDA_VISIBLE_DEVICES="7,50%0A"))
    r = gd("check", "--replay", path, "--format", "github", "-r", "gpus>=1")
    assert r.exit_code == 1
    lines = r.stdout.splitlines()
    hidden = next(line for line in lines if line.startswith("::error title=cuda-visible-devices-hides-all::"))
    # The literal "%0A" is escaped to "%250A", so the runner shows it as text, not as a line break.
    assert "CUDA_VISIBLE_DEVICES='7,50%250A'" in hidden
    assert "\r" not in r.stdout
    assert all(line.startswith(("::", "gpudoctor: ")) for line in lines), lines
    unmet = next(line for line in lines if line.startswith("::error title=requirement-unmet::"))
    assert unmet.startswith(
        "::error title=requirement-unmet::requirement not met: gpus>=1%0AThis job requires gpus>=1; "
        "found: 0 GPU(s) (CUDA_VISIBLE_DEVICES=7,50%250A of 1).%0A"
    )


def test_github_workflow_command_escaping_rules():
    from gpudoctor.render.github import escape_data, escape_property, workflow_command

    assert escape_data("100% done\r\nnext: a, b") == "100%25 done%0D%0Anext: a, b"
    assert escape_property("a:b,c%d\ne") == "a%3Ab%2Cc%25d%0Ae"
    assert workflow_command("warning", "x: 1%\ny", title="t:1,2") == "::warning title=t%3A1%2C2::x: 1%25%0Ay"
    assert workflow_command("notice", "plain") == "::notice::plain"


def test_github_doctor_failure_is_an_error_command_exit_3(gd, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    r = gd("check", "--replay", str(bad), "--format", "github")
    assert r.exit_code == 3
    assert r.stdout.startswith("::error title=gpudoctor-failed::")
    assert "is not valid JSON (line 1, column 2" in r.stdout
    assert "%0Ahint: a snapshot is one JSON object" in r.stdout


def test_github_summary_that_cannot_be_written_does_not_change_the_exit_code(gd, tmp_path):
    r = gd("check", "--replay", A, "--format", "github", env={"GITHUB_STEP_SUMMARY": str(tmp_path)})
    assert r.exit_code == 0
    assert "cannot append to GITHUB_STEP_SUMMARY" in r.stderr


# --------------------------------------------------------------------------- junit


def _junit(text: str) -> ET.Element:
    assert text.startswith('<?xml version="1.0" encoding="UTF-8"?>\n')
    return ET.fromstring(text.encode("utf-8"))


@pytest.mark.typer_rich
def test_junit_one_case_per_check_and_per_requirement(gd):
    from gpudoctor.checks import all_checks

    args = ("check", "--replay", B, "-r", "gpus==2", "-r", "bf16", "-r", "torch:cuda", "--node", "gpu-07")
    r = gd(*args, "--format", "junit")
    assert r.exit_code == 1
    root = _junit(r.stdout)
    doc = _json(gd(*args, "--format", "json"))
    checks, reqs = root.findall("testsuite")
    assert root.tag == "testsuites" and root.get("name") == "gpudoctor"
    assert checks.get("name") == "gpudoctor.checks" and checks.get("hostname") == "gpu-07"
    assert [tc.get("name") for tc in checks.findall("testcase")] == [c.name for c in all_checks()]
    assert {p.get("name"): p.get("value") for p in checks.find("properties")}["exit_code"] == "1"
    # Every finding of the JSON report (but requirement-unmet) is one <failure> in the case of the check that owns its code.
    owner = {code: c.name for c in reversed(all_checks()) for code in c.codes}
    expected = sorted(
        (owner[f["code"]], f"[{f['code']}] {f['title']}", f["severity"])
        for f in doc["findings"]
        if f["code"] != "requirement-unmet" and f["severity"] != "info"  # info is below --fail-on warning
    )
    got = sorted(
        (tc.get("name"), fl.get("message"), fl.get("type")) for tc in checks.findall("testcase") for fl in tc.findall("failure")
    )
    assert got == expected and got
    assert (
        "framework-build",
        "[framework-cpu-build] PyTorch 2.13.0+cpu is a CPU-only build, so it cannot use the NVIDIA GPU",
        "error",
    ) in got
    failing_cases = {tc.get("name") for tc in checks.findall("testcase") if tc.find("failure") is not None}
    assert checks.get("failures") == str(len(failing_cases))
    assert checks.get("tests") == str(len(all_checks()))
    # Requirements: one case each; met ones pass with what was found.
    assert reqs.get("name") == "gpudoctor.checks.requirements" and reqs.get("tests") == "3" and reqs.get("failures") == "2"
    cases = {tc.get("name"): tc for tc in reqs.findall("testcase")}
    assert list(cases) == ["gpus==2", "bf16", "torch:cuda"]
    assert cases["gpus==2"].find("failure") is None
    assert cases["gpus==2"].find("system-out").text == "met: 2 GPU(s)"
    assert (
        cases["torch:cuda"].find("failure").get("message")
        == "[requirement-unmet] torch:cuda: torch 2.13.0+cpu is a CPU-only build"
    )
    assert cases["torch:cuda"].find("failure").get("type") == "requirement-unmet"
    assert root.get("tests") == str(len(all_checks()) + 3)
    assert root.get("failures") == str(len(failing_cases) + 2)


def test_junit_warnings_below_fail_on_go_to_system_out(gd, tmp_path):
    path = machine_variant(tmp_path, "rtx4090-torch-cu121", _ldconfig_fails)
    r = gd("check", "--replay", path, "--format", "junit", "--fail-on", "error", "-r", "torch:cuda")
    assert r.exit_code == 0
    root = _junit(r.stdout)
    assert root.get("failures") == "0" and root.get("errors") == "0"
    probes = next(tc for tc in root.iter("testcase") if tc.get("name") == "probes")
    assert probes.find("failure") is None
    assert probes.find("system-out").text.startswith("warning: [probe-failed] gpudoctor could not see: ldconfig cache\n")
    # The same machine under --fail-on warning fails that case.
    strict = _junit(gd("check", "--replay", path, "--format", "junit").stdout)
    probes = next(tc for tc in strict.iter("testcase") if tc.get("name") == "probes")
    assert probes.find("failure").get("type") == "warning"
    assert probes.find("failure").get("message") == "[probe-failed] gpudoctor could not see: ldconfig cache"
    assert strict.get("failures") == "1"


def test_junit_healthy_machine_passes_everything(gd):
    r = gd("check", "--replay", A, "--format", "junit", "-r", ALL_MET_ON_A)
    assert r.exit_code == 0
    root = _junit(r.stdout)
    assert root.get("failures") == "0" and root.get("errors") == "0"
    assert not list(root.iter("failure")) and not list(root.iter("error"))
    assert [tc.get("name") for tc in root.findall("testsuite")[1]] == ALL_MET_ON_A.split()


def test_junit_doctor_failure_is_one_errored_case_exit_3(gd, tmp_path):
    r = gd("check", "--replay", str(tmp_path), "--format", "junit")  # a directory: an unusable snapshot
    assert r.exit_code == 3
    root = _junit(r.stdout)
    error = root.find("testsuite/testcase/error")
    assert error.get("type") == "gpudoctor-failed"
    assert "is a directory, not a snapshot file" in error.get("message")


def test_junit_crashed_check_is_an_error_and_control_characters_are_shown_escaped():
    from gpudoctor.doctor import diagnose
    from gpudoctor.host.replay import ReplayHost
    from gpudoctor.host.snapshot import load_snapshot
    from gpudoctor.model import ExitCode, Finding, Severity
    from gpudoctor.render.junit import render_junit

    report = diagnose(ReplayHost(load_snapshot(A)))
    report.findings = [
        Finding(
            "internal-check-error",
            Severity.WARNING,
            "doctor",
            "the mig check crashed; its area was not judged",
            "KeyError: 'x'\x1b[0m",
        ),
        Finding("some-future-code", Severity.ERROR, "gpu", "a finding no check declares", "detail\x00"),
    ]
    root = ET.fromstring(render_junit(report, (), ExitCode.FINDINGS, Severity.WARNING).encode("utf-8"))
    mig = next(tc for tc in root.iter("testcase") if tc.get("name") == "mig")
    assert mig.find("error").get("type") == "internal-check-error"
    # ESC and NUL cannot be XML text and must not reach a terminal: shown as escapes (gpudoctor.render.xmltext).
    assert mig.find("error").text.startswith("KeyError: 'x'\\x1b[0m")
    assert other_body(root) == "detail\\x00"
    other = next(tc for tc in root.iter("testcase") if tc.get("name") == "other-findings")
    assert other.find("failure").get("message") == "[some-future-code] a finding no check declares"
    assert root.get("errors") == "1" and root.get("failures") == "1"


def other_body(root) -> str:
    other = next(tc for tc in root.iter("testcase") if tc.get("name") == "other-findings")
    return other.find("failure").text
