"""Which interpreter's environment a check probes: `--python PATH`, else the active VIRTUAL_ENV or CONDA_PREFIX,
else the `python3` on PATH, else gpudoctor's own.

Here, in the host layer, and not beside the probe that reads the answer (gpudoctor.probes.python): a live check
starts that interpreter before it builds its request and imports the probes and their records
(gpudoctor.cli.check), and this module imports nothing beyond the host's seam.
"""

from __future__ import annotations

import posixpath

from gpudoctor.host import Host


def choose_interpreter(host: Host, override: str | None) -> tuple[str | None, str]:
    """(interpreter path or None for our own, what chose it)."""
    if override:
        return override, "--python"
    if host.mode == "replay":
        return None, "the snapshot"
    env = host.env()
    for var in ("VIRTUAL_ENV", "CONDA_PREFIX"):
        prefix = env.get(var)
        if prefix:
            from gpudoctor.host import winpath

            if winpath.is_windows_path(prefix):
                # Windows: a venv's interpreter is Scripts\python.exe, a conda environment's python.exe at its top.
                candidates = [winpath.join(prefix, "Scripts", "python.exe"), winpath.join(prefix, "python.exe")]
            else:
                candidates = [posixpath.join(prefix, name) for name in ("bin/python", "bin/python3")]
            for candidate in candidates:
                if host.exists(candidate):
                    return candidate, var
    if host.platform().get("system") == "Windows":
        # python.org and conda install python.exe; python3.exe is often only the Store's alias.
        on_path = host.which("python") or host.which("python3")
        return (on_path, "PATH") if on_path else (None, "gpudoctor's own interpreter")
    on_path = host.which("python3") or host.which("python")
    if on_path:
        return on_path, "PATH"
    return None, "gpudoctor's own interpreter"
