"""Whole machines, replayed through the whole doctor, judged against hand-written expectations.

Each tests/machines/<slug>/ holds snapshot.json (recorded on a real machine, or assembled from
real captures by machine.toml) and expected.toml:

    [[finding]]
    code = "driver-missing"
    severity = "error"
    why = "the GPU is on the bus and no nvidia module is loaded"
    names = ["no NVIDIA driver is loaded", "sudo ubuntu-drivers install"]

    [facts]                      # optional: facts that must hold, by dotted path into the JSON facts
    "driver.smi_driver_version" = "565.57.01"

Every finding of severity warning or error must be listed (nothing unexpected may appear);
listed info findings must appear; unlisted info findings are allowed.

`absent_names` (optional): what it must not say, such as a program the machine does not have.
`names`: what the finding must say, each a substring of the text the user reads about it: its title,
detail, fix (summary and commands, and the alternative) and, where the plan has a step for it, that step's
printed lines. Written by hand: the minimum driver, the versions, the paths and the commands that make the
finding right, so a rule that names the wrong floor or drops the fix fails here, not only one that
changes the code. No finding code may be reported twice, except once per GPU (each naming another GPU).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gpudoctor.doctor import diagnose
from gpudoctor.facts import to_json
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import load_snapshot
from gpudoctor.model import Severity
from gpudoctor.planner import prescribe
from tests.machines import snapshot_file

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

MACHINES = Path(__file__).resolve().parent / "machines"
SLUGS = sorted(p.parent.name for p in MACHINES.glob("*/expected.toml"))


def _dig(data, dotted: str):
    for part in dotted.split("."):
        data = data[int(part)] if isinstance(data, list) else data[part]
    return data


def finding_text(finding, plan) -> str:
    """Everything the user reads about one finding: title, detail, fix, and its step of the plan."""
    parts = [finding.title, finding.detail]
    remedies = [finding.remediation] if finding.remediation else []
    if finding.remediation and finding.remediation.alternative:
        remedies.append(finding.remediation.alternative)
    for r in remedies:
        parts += [r.summary, *r.lines()]
    for step in plan.steps:
        if finding.code in step.codes:
            parts += step.printed()
    return "\n".join(parts)


def _gpu_named(finding) -> str | None:
    match = re.search(r"\bGPU (\d+)\b", finding.title)
    return match.group(1) if match else None


@pytest.mark.parametrize("slug", SLUGS)
def test_machine(slug):
    machine = MACHINES / slug
    expected = tomllib.loads((machine / "expected.toml").read_text(encoding="utf-8"))
    report = diagnose(ReplayHost(load_snapshot(str(snapshot_file(machine)))))
    got = {(f.code, f.severity.label) for f in report.findings}
    wanted = {(e["code"], e["severity"]) for e in expected.get("finding", [])}
    for entry in expected.get("finding", []):
        assert entry.get("why"), f"{slug}: every expectation carries its reason"
        assert entry.get("names"), f"{slug}: {entry['code']}: every expectation says what the finding must name (names)"
    by_code: dict[str, list] = {}
    for f in report.findings:
        by_code.setdefault(f.code, []).append(f)
    for code, found in by_code.items():
        gpus = [_gpu_named(f) for f in found]
        assert len(found) == 1 or (None not in gpus and len(set(gpus)) == len(gpus)), (
            f"{slug}: {code} reported {len(found)} times: " + "; ".join(f.title for f in found)
        )
    plan = prescribe.build(report.findings)
    for entry in expected.get("finding", []):
        texts = [finding_text(f, plan) for f in by_code.get(entry["code"], []) if f.severity.label == entry["severity"]]
        for name in entry.get("names", []):
            assert any(name in text for text in texts), f"{slug}: {entry['code']} does not name {name!r}:\n" + "\n--\n".join(
                texts
            )
        for name in entry.get("absent_names", []):  # what the finding must not say (a program the machine lacks)
            assert not any(name in text for text in texts), f"{slug}: {entry['code']} names {name!r}"
    missing = wanted - got
    unexpected = {(c, s) for c, s in got - wanted if Severity[s.upper()] >= Severity.WARNING}
    detail = "\n".join(f"  {f.severity.label} {f.code}: {f.title}" for f in report.findings)
    assert not missing and not unexpected, f"{slug}: missing {sorted(missing)}, unexpected {sorted(unexpected)}\n{detail}"
    assert not report.internal_errors
    facts = to_json(report.facts)
    for dotted, value in expected.get("facts", {}).items():
        assert _dig(facts, dotted) == value, f"{slug}: facts.{dotted}"


@pytest.mark.parametrize("slug", sorted(p.parent.name for p in MACHINES.glob("*/machine.toml")))
def test_assembled_snapshot_is_current(slug):
    from tests.machines.assemble import assemble

    assert (MACHINES / slug / "snapshot.json").read_text(encoding="utf-8") == assemble(MACHINES / slug), (
        f"run: python tests/machines/assemble.py {slug}"
    )


def test_every_machine_has_expectations():
    dirs = {p.name for p in MACHINES.iterdir() if p.is_dir() and not p.name.startswith("__")}
    assert dirs == set(SLUGS)


def test_every_finding_code_is_emitted_by_some_machine():
    from gpudoctor.checks import check_codes

    emitted = set()
    for slug in SLUGS:
        expected = tomllib.loads((MACHINES / slug / "expected.toml").read_text(encoding="utf-8"))
        emitted |= {e["code"] for e in expected.get("finding", [])}
    # internal-check-error needs a broken check, which test_checks.py provokes on purpose; the process codes need
    # check --pid (a plain check reads no process): tests/test_machines_processes.py runs it on every recorded
    # machine's processes, tests/unit/test_extensions_elf.py on a live one.
    # numpy-abi-mismatch is read from NumPy's own message in pasted text only (a snapshot records no such import
    # failure); tests/spec/test_pasted_messages.py holds its real examples. So are cuda-bindings-too-old (CUDA Python's
    # NotSupportedError) and shm-too-small (a DataLoader worker's bus error, NCCL's shm_open): their real examples are
    # in tests/spec/test_pasted_messages.py, tests/spec/test_pasted_containers.py and tests/pasted/test_catalogue.py.
    needs_more = {
        "internal-check-error",
        "process-library-differs",
        "process-libraries-mapped",
        "numpy-abi-mismatch",
        "cuda-bindings-too-old",
        "shm-too-small",
        # --require's (tests/cli) and a pasted Slurm job's GPU count below its program's (tests/pasted/test_orchestration.py)
        "requirement-unmet",
        # the reporter's words that a workload given no GPU sees them all: pasted text only (a snapshot of the host
        # cannot tell which container asked for what); tests/spec/test_pasted_containers.py states it
        "container-gpus-unrequested",
        # CUDA's 999 at its first call and a program killed inside WSL 2: read from the pasted messages and the shell's
        # kill line only (a snapshot records neither); tests/spec/test_driver_node_state.py and
        # tests/pasted/test_driver_node_state.py hold them, with real examples in tests/pasted/catalogue_examples
        "cuda-init-unknown",
        "wsl-memory-limit",
        # a multi-host job's containers behind docker's bridge network: the ranks' hosts and NCCL's failure are read
        # from pasted text only; tests/spec/test_pasted_compose.py states it
        "container-network-isolated",
        # NCCL offering the ranks an interface they cannot reach: NCCL's log and its failure, pasted text only;
        # tests/spec/test_pasted_nccl.py states it
        "nccl-interface-unroutable",
        # Windows' watchdog resetting a GPU that ran one kernel past TdrDelay: CUDA's launch-timeout message on a Windows
        # report, pasted text only (a snapshot records no program's failure); tests/spec/test_windows_tdr.py states it
        "windows-tdr-timeout",
        # a POSIX line refused by cmd.exe or PowerShell, and PowerShell's execution policy refusing Activate.ps1: the
        # shell's own error, pasted text only (a snapshot runs no shell line); tests/spec/test_windows_shell_syntax.py
        # states both on real reports in tests/pasted/catalogue_examples
        "windows-shell-syntax",
        "windows-script-policy",
        # a WSL 2 report on a Windows build before 21H2 (19044): the Windows build is stated in pasted text only (a
        # snapshot of the distribution does not record it); tests/spec/test_wsl_windows_build.py states it
        "wsl-windows-too-old",
        # the remote ranks of an ssh launcher running the system's python: read from pasted text only (the interpreters
        # of other nodes are not on this machine); tests/spec/test_pasted_compose.py states it
        "ranks-python-differs",
        # the host's package listing (apt list --installed, dpkg -l) beside a video codec failing: pasted text only (a
        # snapshot records no package list); tests/spec/test_pasted_video_packages.py states it
        "driver-video-library-missing",
        # a video library missing in a container docker exec names, with no video capability shown: pasted text only (a
        # snapshot records no container's creation options); tests/spec/test_pasted_video_packages.py states it
        "container-video-capability-missing",
        # docker's pull of an nvidia/cuda tag the registry does not hold: pasted text only (a snapshot pulls no image);
        # tests/spec/test_pasted_container_requests.py states it
        "container-image-tag-missing",
        # a framework's prebuilt binary killed by SIGILL on a CPU without the instructions it was built for (AVX): the
        # shell's report of the failing import, pasted text only (a snapshot imports no framework);
        # tests/spec/test_framework_cpu_unsupported.py states it on real reports
        "framework-cpu-unsupported",
        # an ollama model held on the CPU at several times its weights by a context length set beyond the default:
        # `ollama ps`/`ollama list` rows, pasted text only (a snapshot runs no ollama); tests/spec/test_ollama_context.py
        # states it on real reports
        "ollama-context-too-large",
        # the GPU Operator's driver container failing on a node whose kernel its distribution does not carry: the
        # cluster's text only (a snapshot reads no pod); tests/spec/test_pasted_container_requests.py states it
        "driver-container-kernel-unsupported",
        # CUDA's error 46 beside a compute mode nvidia-smi shows: both read from pasted text only (a snapshot probes no
        # failing program); tests/spec/test_compute_mode.py states it
        "gpu-compute-mode-restricted",
        # CUDA's 801 in ComfyUI, which runs PyTorch with the cudaMallocAsync allocator: the failing program's log, pasted
        # text only (a snapshot runs no program); tests/spec/test_allocator_backend.py states it on real reports
        "torch-allocator-unsupported",
        # nvcc's host_config.h refusing the build's host compiler: a build's output, pasted text only (a snapshot records
        # no build); tests/spec/test_pasted_messages.py states it, with real examples in tests/pasted/catalogue_examples
        "host-compiler-unsupported",
        # a CUDA extension's build that found no toolkit (cpp_extension's and DeepSpeed's CUDA_HOME messages): a build's
        # output, pasted text only; tests/spec/test_build_toolkit_missing.py states it, with real examples in
        # tests/pasted/catalogue_examples
        "toolkit-missing-for-build",
        # an extension's build stopping in torch's ATen/cudnn headers for want of cudnn.h: a build's output, pasted text
        # only; tests/spec/test_build_cudnn_headers.py states it, with a real example in tests/pasted/catalogue_examples
        "cudnn-headers-missing-for-build",
        # Windows' error 1455 (the commit limit) as torch raises it loading a DLL: a failing import's message, pasted
        # text only (a snapshot records no failed import); tests/spec/test_reported_rules.py states it, with a real
        # example in tests/pasted/catalogue_examples
        "windows-paging-file-too-small",
        # an installer's refusal (no wheel for this Python or platform, PEP 668): the install's output, pasted text only
        # (a snapshot records no install); tests/spec/test_pasted_installers.py states them, with real examples in
        # tests/pasted/catalogue_examples
        "python-no-wheel",
        "python-externally-managed",
        # pip's own "no such option: --config-settings" (a pip older than the option): an install's output, pasted text
        # only; tests/spec/test_pasted_installers.py states it on real reports
        "pip-too-old",
        # NVIDIA Apex missing or built without its extensions: a failing program's message, pasted text only;
        # tests/spec/test_apex_not_built.py states it on real reports
        "extension-not-built",
        # a program's own fault (a device-side assert, CUDA in a forked child, its out-of-memory): the failing program's
        # message, pasted text only (a snapshot runs no program); tests/spec/test_program_fault.py states it on the real
        # pastes of tests/pasted/head/pytorch
        "program-fault",
        # pip stopped at a path past Windows' 260 characters, and a CUDA 13 toolkit's DLLs a program looked for in bin
        # (CUDA 13 keeps them in bin\\x64): an install's and a program's output, pasted text only (a snapshot records
        # neither); tests/spec/test_pasted_installers.py and tests/spec/test_cuda13_dll_folder.py state them
        "windows-long-paths-disabled",
        "cuda13-dll-folder",
        # a GPU application's image run from a tag without GPU libraries: the image a paste names (a snapshot records no
        # container's image); tests/spec/test_app_image_variant.py states it on real reports
        "app-image-cpu-variant",
        # NCCL's InfiniBand registration refused under a locked-memory limit the paste shows (ulimit -l): a job's log and
        # a shell's answer, pasted text only (a snapshot records no job's log); tests/spec/test_nccl_memlock.py states it
        "nccl-memlock-too-low",
        # NCCL's InfiniBand transport finding no device inside the ranks' container: a job's log beside its launch, pasted
        # text only (a snapshot records no job's log); tests/spec/test_nccl_ib_container.py states it on two real threads
        "nccl-ib-not-in-container",
        # a TensorRT engine refused where it was not built: the program's log, pasted text only (a snapshot runs no
        # program); tests/spec/test_tensorrt_engine.py states it on the catalogue's real examples
        "tensorrt-engine-not-portable",
        # a launcher pip's user-scheme fallback put off PATH: pip's "Defaulting to user installation" beside the shell's
        # "command not found", pasted text only (a snapshot runs no shell); tests/spec/test_pasted_installers.py states it
        "python-scripts-off-path",
        # CUDA's error 802 beside a driver that answers: a program's message, pasted text only (a snapshot runs no CUDA
        # program); tests/spec/test_fabric_manager.py states it, with real threads in tests/pasted (plans21/2118,
        # wilicc/gpu-burn#92)
        "fabric-manager-not-running",
    }
    assert set(check_codes()) - needs_more <= emitted


def test_healthy_machines_exist():
    healthy = [
        slug
        for slug in SLUGS
        if not tomllib.loads((MACHINES / slug / "expected.toml").read_text(encoding="utf-8")).get("finding")
    ]
    assert len(healthy) >= 3, healthy
