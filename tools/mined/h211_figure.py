"""Print, per pasted example, the findings' codes, the plan's first command and the first asks (h211's start and after figures).

Usage: PYTHONPATH=src python tools/mined/h211_figure.py FILE... (runs `gpudoctor check --from FILE --format json`)."""

import json
import os
import subprocess
import sys

for path in sys.argv[1:]:
    out = subprocess.run(
        [sys.executable, "-m", "gpudoctor", "check", "--from", path, "--format", "json"],
        capture_output=True,
        text=True,
        env={**os.environ},
    )
    try:
        d = json.loads(out.stdout)
    except Exception:
        print(os.path.basename(path), "ERROR", out.stderr[-300:])
        continue
    codes = [f["code"] for f in d["findings"]]
    steps = d["plan"]["steps"]
    # the step's first printed line that is a command (its rendered lines; "#" lines are notes)
    lines = [ln for ln in (steps[0]["lines"] if steps else []) if not ln.startswith("#")]
    first = lines[0] if lines else (steps[0]["summaries"][0][:120] if steps else None)
    asks = [a.get("command") for a in (d.get("pasted") or {}).get("ask_for", [])][:2]
    print(f"{os.path.basename(path)}\n   findings={codes}\n   first={json.dumps(first)[:200]}\n   asks={json.dumps(asks)[:200]}")
