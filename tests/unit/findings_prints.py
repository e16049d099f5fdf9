"""What gpudoctor prints for a finding on a recorded machine: the text of a docs/findings page's
`## What gpudoctor prints` section, built from the machine's replay (and compared with the page by
tests/unit/test_checks_prescriptions.py). `python -m tests.unit.findings_prints` rewrites the sections.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGES = ROOT / "docs" / "findings"
MACHINES = ROOT / "tests" / "machines"
HEADING = "## What gpudoctor prints"

# finding code -> the recorded machines whose fix the page shows (each a different case of the fix)
SHOWN = {
    "gpu-none": ("ci-docker-cuda13-no-gpu",),
    "driver-nouveau": ("rtx3080-nouveau",),
    "driver-missing": ("rtx3080-no-driver",),
    "driver-library-mismatch": ("driver-library-mismatch-after-upgrade",),
    "driver-unreachable": ("docker-nvml-unknown-error-after-daemon-reload", "h100-driver-unreachable"),
    "device-nodes-missing": ("rtx4090-device-node-permissions",),
    "probe-timeout": ("h100-nvidia-smi-hangs",),
    "container-no-gpu": ("docker-started-without-gpus",),
    "wsl1-no-cuda": ("wsl1",),
    "wsl-linux-driver-installed": ("wsl2-linux-driver-installed",),
    "cuda-visible-devices-hides-all": ("rtx2070x2-cuda-visible-devices-wrong",),
    "mig-enabled": ("a30-mig-enabled-no-instances", "h100-mig-four-instances"),
    "pcie-link-degraded": ("h100nvl-failing-gpu",),
    "gpu-ecc-errors": ("h100nvl-failing-gpu",),
    "gpu-throttled": ("h100nvl-failing-gpu",),
    "gpu-memory-held": ("h100nvl-failing-gpu",),
    "tf-preallocates": ("rtx4000ada-tf-beside-torch-job",),
    "jax-preallocates": ("t4-jax-beside-tf-notebook",),
    "probe-failed": ("tesla-t4-proc-unreadable",),
}


def finding_on(code: str, slug: str):
    """The first finding `code` on the recorded machine `slug` (its checks only: no other area's code runs)."""
    from gpudoctor.checks import Context, all_checks
    from gpudoctor.host.replay import ReplayHost
    from gpudoctor.host.snapshot import load_snapshot
    from gpudoctor.probes import run_probes

    facts = run_probes(ReplayHost(load_snapshot(str(MACHINES / slug / "snapshot.json"))))
    ctx = Context()
    for check in all_checks():
        if code in check.codes:
            for f in check.run(facts, ctx):
                if f.code == code:
                    return f
    raise LookupError(f"{slug} shows no {code}")


def section(code: str) -> str:
    out = [HEADING, ""]
    for slug in SHOWN[code]:
        r = finding_on(code, slug).remediation
        where = r.where or "this machine"
        out.append(f"On `tests/machines/{slug}` (plan step: {r.component}; run on {where}):")
        out.append("")
        out.append("```")
        out.extend(r.lines("posix"))
        out.append("```")
        out.append("")
    return "\n".join(out)


def page_section(text: str) -> str | None:
    m = re.search(r"^## What gpudoctor prints\n.*?(?=^## |\Z)", text, re.M | re.S)
    return m.group(0).rstrip("\n") + "\n" if m else None


def rewrite(code: str) -> None:
    path = PAGES / f"{code}.md"
    text = path.read_text(encoding="utf-8")
    new = section(code).rstrip("\n") + "\n"
    old = page_section(text)
    if old is not None:
        text = text.replace(old, new)
    elif "\n## Related" in text:
        text = text.replace("\n## Related", "\n" + new + "\n## Related", 1)
    else:
        text = text.rstrip("\n") + "\n\n" + new
    path.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    for code in SHOWN:
        rewrite(code)
