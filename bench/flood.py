"""How much memory and time `gpudoctor check` takes when nvidia-smi, lspci and the probed Python flood
their output (docs/security.md: at most 200 MB and 15 s). Run: python bench/flood.py [RUNS]

Each run starts gpudoctor under a small wrapper that reports its peak RSS (getrusage of its only child).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WRAPPER = r"""
import json, resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
print(json.dumps({"peak_kb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))
"""
SHIMS = {
    "nvidia-smi": 'exec yes "<nvidia_smi_log> flood flood flood flood flood"',
    "lspci": "yes 1>&2",
    "python3-flood": "exec cat /dev/zero",
}


def main(runs: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        bin_dir = Path(tmp)
        for name, body in SHIMS.items():
            p = bin_dir / name
            p.write_text("#!/bin/sh\n" + body + "\n", encoding="utf-8")
            p.chmod(0o755)
        env = {**os.environ, "PATH": f"{bin_dir}:{os.environ.get('PATH', '/usr/bin:/bin')}", "PYTHONPATH": str(ROOT / "src")}
        env.pop("VIRTUAL_ENV", None)
        env.pop("CONDA_PREFIX", None)
        peaks, secs = [], []
        for _ in range(runs):
            start = time.monotonic()
            out = subprocess.run(
                [
                    sys.executable,
                    "-c",
                    WRAPPER,
                    sys.executable,
                    "-m",
                    "gpudoctor",
                    "check",
                    "--python",
                    str(bin_dir / "python3-flood"),
                    "--format",
                    "json",
                    "--probe-timeout",
                    "15",
                ],
                capture_output=True,
                env=env,
                check=True,
                timeout=180,
            )
            secs.append(time.monotonic() - start)
            peaks.append(json.loads(out.stdout)["peak_kb"] / 1000)
    print(
        f"check with flooding nvidia-smi, lspci and --python, {runs} runs: "
        f"peak RSS median {statistics.median(peaks):.0f} MB (max {max(peaks):.0f}), "
        f"wall median {statistics.median(secs):.2f} s (max {max(secs):.2f})"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
