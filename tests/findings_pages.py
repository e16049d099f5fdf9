"""What gpudoctor prints for a finding, as the docs/findings pages show it: each page's
`## What gpudoctor prints` section is built here from a recorded machine (or bandwidth run, or a
`--require` spec) and compared by tests/test_findings_pages.py.

After a deliberate change to a fix: `python -m tests.findings_pages` rewrites the sections.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGES = ROOT / "docs" / "findings"
HEADING = "## What gpudoctor prints"


@dataclass(frozen=True)
class Example:
    path: str  # a recorded machine (folder with snapshot.json), a snapshot file, or bandwidth results
    require: str | None = None  # the --require spec the finding needs

    @property
    def snapshot(self) -> Path:
        p = ROOT / self.path
        if not p.is_dir():
            return p
        return p / "snapshot.json" if (p / "snapshot.json").exists() else p / "snapshot.json.gz"


def _m(*slugs: str) -> tuple[Example, ...]:
    return tuple(Example(f"tests/machines/{s}") for s in slugs)


# finding code -> the examples its page shows (each a different case of the fix)
EXAMPLES: dict[str, tuple[Example, ...]] = {
    "extension-symbol-missing": _m("rtx4090-flashattn257-torch230-setdevice", "rtx4090-vllm032-torch221-undefined-symbol"),
    "companion-torch-mismatch": _m("rtx4090-torchaudio202-cu117-torch201-cu118", "rtx4090-vllm032-torch221-undefined-symbol"),
    "nccl-too-old": _m("rtx4090-torch220-nccl2181-ncclcommregister"),
    "extension-glibc-too-old": _m("rtx4090-flashattn274-debian11-glibc231"),
    "driver-nouveau": _m("rtx3080-nouveau"),
    "driver-missing": _m("rtx3080-no-driver"),
    "driver-library-mismatch": _m("driver-library-mismatch-after-upgrade"),
    "driver-unreachable": _m("docker-nvml-unknown-error-after-daemon-reload", "h100-driver-unreachable"),
    "device-nodes-missing": _m("rtx4090-device-node-permissions"),
    "probe-timeout": _m("h100-nvidia-smi-hangs"),
    "probe-failed": _m("tesla-t4-proc-unreadable"),
    "container-no-gpu": _m("docker-started-without-gpus"),
    "gpu-none": _m("slurm-job-cpu-node-without-gres"),
    "wsl1-no-cuda": _m("wsl1"),
    "wsl-linux-driver-installed": _m("wsl2-linux-driver-installed"),
    "cuda-visible-devices-hides-all": _m("rtx2070x2-cuda-visible-devices-wrong"),
    "mig-enabled": _m("a30-mig-enabled-no-instances", "h100-mig-four-instances"),
    "gpu-lost": _m("h100x2-gpu-fallen-off-bus"),
    "pcie-link-degraded": _m("h100nvl-failing-gpu"),
    "gpu-ecc-errors": _m("h100nvl-failing-gpu"),
    "gpu-throttled": _m("h100nvl-failing-gpu"),
    "gpu-memory-held": _m("h100nvl-failing-gpu"),
    "tf-preallocates": _m("rtx4000ada-tf-beside-torch-job"),
    "jax-preallocates": _m("t4-jax-beside-tf-notebook"),
    "cuda-link-dangling": _m("rtx4090-toolkit-paths-disagree"),
    "cuda-paths-disagree": _m("rtx4090-toolkit-paths-disagree"),
    "toolkit-newer-than-driver": _m("rtx4090-toolkit-paths-disagree"),
    "toolkit-arch-unsupported": _m("quadro-p2000-driver525-cuda13-toolkit"),
    "toolkit-torch-major-mismatch": _m("rtx4090-nvcc118-torch-cu121"),
    "cudnn-missing": _m("rtx3060-tf211-cuda12-only"),
    "cudnn-too-old": _m("rtx3060-tf211-cudnn80-too-old"),
    "cudnn-sublibraries-mixed": _m("h200-driver580-cudnn-sublibraries-on-ld-library-path"),
    "cudnn-cuda-mismatch": _m("rtx4090-torch-cu121-with-cudnn-cu11-wheel"),
    # The second: torchvision moves with torch in the same line, pinned to its release for the torch installed (issue 32).
    "framework-cpu-build": (
        *_m("rtx3060-laptop-torch-cpu-build"),
        Example("tests/real/conda-cpuonly-torch181-rtx3090x2-driver470"),
    ),
    "framework-driver-too-old": _m("p100-driver510-torch-cu121"),
    "framework-arch-unsupported": (*_m("rtx5070-torch-cu121-no-sm120"), Example("tests/real/a100-torch1101-cu102-no-sm80")),
    "framework-cuda-libs-missing": _m("rtx3060-tf211-cuda12-only"),
    "framework-windows-native-gpu": _m("windows-rtx3080-tensorflow215"),
    "windows-cuda-path-missing": _m("windows-cuda118-after-deleting-v123"),
    "windows-tcc-mode": _m("windows-p100-tcc-geforce-wddm-wsl"),
    "windows-driver-store-stale": _m("windows-egpu-rtx5060ti-ada-laptop-two-nvidia-releases"),
    "nvidia-wheels-conflict": _m("rtx4090-nvidia-wheels-cu11-and-cu12"),
    "jax-plugin-mismatch": (
        *_m("rtx4090-jax-plugin-mismatch"),
        Example("tests/real/octo-jaxlib0431-jax0420"),
        Example("tests/real/jaxlib0414-jax046"),
    ),
    "requirement-unmet": (Example("tests/cli/machines/rtx4090-torch-cu121.json", "driver>=550"),),
    "bandwidth-low": (Example("tests/fixtures/bandwidth/constructed_gen4x16_trained-x8.json"),),
    "bandwidth-copy-corrupt": (Example("tests/fixtures/bandwidth/constructed_gen4x16_verify-failed.json"),),
}


def finding_for(code: str, ex: Example):
    """(the finding, the shell its machine gets, how to reproduce it)."""
    from gpudoctor.cmdline import shell_for_os

    if code.startswith("bandwidth-"):
        from gpudoctor.bandwidth.expected import load_link_table
        from gpudoctor.bandwidth.judge import judge_run
        from gpudoctor.bandwidth.results import BenchRun

        run = BenchRun.from_json(json.loads((ROOT / ex.path).read_text(encoding="utf-8")))
        found = [f for f in judge_run(run, load_link_table()).findings if f.code == code]
        # Named, not given as a path: the pages ship in the package, and a pipx user has no tests/ (issue 31).
        how = f"the recorded bandwidth results {Path(ex.path).stem} (gpudoctor's test suite)"
        shell = "posix"
    else:
        from gpudoctor.doctor import diagnose
        from gpudoctor.host.replay import ReplayHost
        from gpudoctor.host.snapshot import load_snapshot

        report = diagnose(ReplayHost(load_snapshot(str(ex.snapshot))))
        found = list(report.findings)
        if ex.require:
            from gpudoctor.checks.requirements import evaluate, parse_requirements

            found = [o.finding for o in evaluate(parse_requirements([ex.require]), report.facts, report.findings) if o.finding]
        found = [f for f in found if f.code == code]
        shell = shell_for_os(report.facts.platform.system)
        how = f"the recorded machine {ex.snapshot.parent.name} (gpudoctor's test suite)" + (
            f", with `--require '{ex.require}'`" if ex.require else ""
        )
    if not found:
        raise LookupError(f"{ex.path} shows no {code}")
    return found[0], shell, how


def section(code: str) -> str:
    out = [HEADING, ""]
    for ex in EXAMPLES[code]:
        finding, shell, how = finding_for(code, ex)
        r = finding.remediation
        where = f"; run on {r.where}" if r.where else ""
        step = f" (plan step: {r.component}{where})" if r.component else ""
        shown = " in PowerShell, as that machine runs Windows" if shell == "powershell" else ""
        out += [f"From {how}{step}{shown}:", "", f"> {r.summary}", "", "```", *r.lines(shell), "```", ""]
        if r.alternative is not None:
            out += ["Or instead:", "", f"> {r.alternative.summary}", "", "```", *r.alternative.lines(shell), "```", ""]
    return "\n".join(out).rstrip("\n") + "\n"


def page_section(text: str) -> str | None:
    m = re.search(r"^## What gpudoctor prints\n.*?(?=^## |\Z)", text, re.M | re.S)
    return m.group(0).rstrip("\n") + "\n" if m else None


def rewrite(code: str) -> None:
    path = PAGES / f"{code}.md"
    text = path.read_text(encoding="utf-8")
    new = section(code)
    old = page_section(text)
    if old is not None:
        text = text.replace(old, new)
    elif "\n## Related" in text:
        text = text.replace("\n## Related", "\n" + new + "\n## Related", 1)
    else:
        text = text.rstrip("\n") + "\n\n" + new
    path.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    for code in EXAMPLES:
        rewrite(code)
