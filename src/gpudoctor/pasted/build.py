"""A partial snapshot (docs/snapshot-format.md) from what the pasted blocks said.

Each fact goes where a recorded machine keeps it (the nvidia-smi table under `commands`, the kernel
module's version under `files`, the packages under `python`), so the one doctor judges it; the
`pasted` section keeps the blocks, the error texts and what the text showed missing. Nothing the
text did not show is written: the snapshot says `"partial": true`, and the doctor treats the rest as
unknown. Where a value had to be placed (a site-packages directory nobody pasted), `pasted.placed`
says so, so that a person reading `gpudoctor snapshot --from` can correct it.
"""

from __future__ import annotations

import re
from typing import Any

from gpudoctor.facts import OS_NOT_NAMED, WSL2_RELEASE_PLACED
from gpudoctor.host.nvml import NAMED_IN_TEXT
from gpudoctor.host.snapshot import FORMAT
from gpudoctor.pasted.distro_traces import Traced, field_distribution
from gpudoctor.pasted.gathered import Gathered
from gpudoctor.pasted.provenance import cite, error_places
from gpudoctor.pasted.variants import VARIANTS


def build_snapshot(g: Gathered) -> dict[str, Any]:
    windows = g.system == "Windows"
    placed: list[str] = []
    snap: dict[str, Any] = {
        "format": FORMAT,
        "partial": True,
        "note": "Built by gpudoctor from pasted text: it holds only what the text showed (docs/pasted.md).",
        "platform": {"system": g.system or "Linux"},
        "env": {},
        "files": {},
        "dirs": {},
        "commands": {},
    }
    if g.system is None:
        placed.append("platform: Linux (the text did not name the OS)")
    if g.system is None and not g.wsl and len(g.cues) < 64 and not _posix_shown(g):
        # (gpudoctor.planner.where: its commands are written for any shell where one line runs in all)
        g.cues.append({"cue": OS_NOT_NAMED, "means": "no OS named: lines every shell runs alike", "line": ""})
    if g.wsl and g.wsl1_said and "microsoft" not in g.release.lower():
        # (WSL 1's kernel interface reports itself as "<x>-Microsoft"; probes.platform.detect_wsl reads that as WSL 1)
        snap["platform"]["release"] = "4.4.0-Microsoft"
        placed.append("kernel: 4.4.0-Microsoft (the text says WSL 1, not its kernel release)")
    elif g.wsl:
        snap["platform"]["release"] = g.release if "microsoft" in g.release.lower() else WSL2_RELEASE_PLACED
        if "microsoft" not in g.release.lower():
            placed.append("kernel: microsoft-standard-WSL2 (the text shows WSL 2, not its kernel release)")
    elif g.release:
        snap["platform"]["release"] = g.release
    if windows:
        snap["platform"].setdefault("release", "10")
        snap["platform"]["machine"] = "AMD64"
    files = snap["files"]
    if g.traced is not None and not windows:
        files["/etc/os-release"] = _traced_os_release(g.traced, g.os_pretty)
    elif g.os_pretty and not windows:
        files["/etc/os-release"] = _os_release(g.os_pretty)
    if g.proc_driver:
        files["/proc/driver/nvidia/version"] = g.proc_driver
    if g.modules:
        files["/proc/modules"] = "".join(f"{m} 0 0 - Live 0x0\n" for m in g.modules)
    for path, entry in g.files.items():
        if entry is None:
            continue  # a directory seen in an ls listing: its children say it exists
        if path.startswith("/") or re.match(r"^[A-Za-z]:/", path):
            files[path] = entry
    snap["env"] = dict(g.env)
    commands = snap["commands"]
    # Inside WSL 2 an NVML failure is the Windows side withholding the GPU (TCC mode, GPU access blocked, a Linux
    # driver in the distribution), not a Linux driver nvidia-smi cannot reach: it stays an error text of the
    # report (pasted.errors), which the WSL asks follow, and is not recorded as the machine's nvidia-smi.
    wsl_failure = g.wsl and bool(g.smi_failure)
    if g.smi_table and not (g.smi_failure and g.smi_failure_line >= 0) and not g.windows_side_models_in_wsl():
        commands["nvidia-smi"] = {"rc": 0, "stdout": g.smi_table, "stderr": ""}
    elif g.smi_failure and not wsl_failure:
        commands["nvidia-smi"] = {"rc": 9, "stdout": g.smi_failure + "\n", "stderr": ""}
    if g.nvcc:
        commands["nvcc --version"] = {"rc": 0, "stdout": g.nvcc, "stderr": ""}
    if g.ldconfig:
        commands["ldconfig -p"] = {"rc": 0, "stdout": g.ldconfig, "stderr": ""}
    if g.lspci:
        commands["lspci -nn"] = {"rc": 0, "stdout": g.lspci, "stderr": ""}
    nvml = _nvml(g)
    if nvml is not None:
        snap["nvml"] = nvml
    python = _python(g, placed)
    if python is not None:
        snap["python"] = python
        site = python["site_packages"][0]
        if g.torch_cuda is not None and "torch" in python["distributions"]:
            cuda = repr(g.torch_cuda) if g.torch_cuda else "None"
            files[f"{site}/torch/version.py"] = f"__version__ = {python['distributions']['torch']!r}\ncuda = {cuda}\nhip = None\n"
        if g.tf_build_info and any(d.startswith("tensorflow") or d == "tf-nightly" for d in python["distributions"]):
            files[f"{site}/tensorflow/python/platform/build_info.py"] = g.tf_build_info
    # (each error with where its line is, "at": the finding over a failure names it, checks.reported)
    places = error_places(g)
    snap["pasted"] = {
        "blocks": g.blocks,
        "errors": [
            {"kind": e.kind, "line": e.line, "values": dict(e.values)} | ({"at": places[e.line]} if e.line in places else {})
            for e in g.errors
        ],
        "missing": list(g.missing),
        "frameworks": list(g.frameworks),
        "whole": list(g.whole),
        "placed": placed,
        "notes": list(g.notes),
        "cues": list(g.cues),
    }
    if g.cluster:
        snap["pasted"]["cluster"] = g.cluster
    if g.windows_side_models_in_wsl():
        # A Windows nvidia-smi table (its Driver-Model column) in a WSL report: the Windows side's GPUs and modes.
        snap["pasted"]["windows_side"] = {"driver_models": {str(i): m for i, m in sorted(g.windows_side_models.items())}}
    # Every fact with the pasted line(s) that state it, or marked assumed (docs/pasted.md, "Where each fact came from").
    snap["pasted"]["read_from"] = cite(snap, g)
    return snap


def _os_release(pretty: str) -> str:
    """The os-release of an OS name the text stated: the distribution it names wherever in it the name stands
    (distro_traces.field_distribution: "Linux Ubuntu 18.04", "WSL2 Ubuntu 22.04", "Red Hat9.2"), with its family as
    ID_LIKE (gpudoctor.planner.remedy.family reads both); a name no distribution of that list is (Kali, Gentoo,
    TencentOS) keeps its first word, a field's label ("Description:", lsb_release's) left out."""
    safe = pretty.replace('"', "'").replace("\\", "/")
    named = field_distribution(pretty)
    if named is not None:
        distro, fam, version = named
        like = f"ID_LIKE={fam}\n" if fam != distro else ""
        return f'PRETTY_NAME="{safe}"\nID={distro}\n{like}VERSION_ID="{version}"\n'
    words = re.sub(r"^\s*\w+:\s*", "", pretty).split()
    distro = words[0].lower() if words else "linux"
    version = next((w for w in words[1:] if re.match(r"^\d+(?:\.\d+)*$", w)), "")
    return f'PRETTY_NAME="{safe}"\nID={re.sub(r"[^a-z0-9]", "", distro) or "linux"}\nVERSION_ID="{version}"\n'


def _traced_os_release(traced: Traced, pretty: str | None) -> str:
    """The os-release of a distribution read from traces: ID only where a trace names the distribution, the family as
    ID_LIKE (gpudoctor.planner.remedy.family reads both), VERSION_ID only where a trace names the release; the
    PRETTY_NAME the text stated (a bare "Linux-<kernel>"), none where it stated none."""
    lines = [f'PRETTY_NAME="{pretty.replace(chr(34), chr(39))}"'] if pretty else []
    lines += [f"ID={traced.distro}"] if traced.distro else []
    lines.append(f"ID_LIKE={traced.family}")
    if traced.release:
        lines.append(f'VERSION_ID="{traced.release}"')
    return "\n".join(lines) + "\n"


def _table_cut(table: str) -> bool:
    """An nvidia-smi table pasted without its GPU rows (cut off after the header): it says nothing about the GPUs."""
    return not re.search(r"^\|\s*\d+\s+\S", table, re.M)


def _nvml(g: Gathered) -> dict[str, Any] | None:
    """NVML as the text showed it: a version mismatch it reported, or the driver and GPUs a program read through it."""
    if g.nvml_mismatch:
        return {"status": "lib_rm_version_mismatch", "error": g.nvml_mismatch}
    if g.smi_failure or (g.smi_table and not g.gpus and not (g.listed_gpus and _table_cut(g.smi_table))):
        # nvidia-smi itself is recorded: the probes read it there (a failure after a table wins). GPUs named
        # elsewhere (collect_env, a warning) beside a table that lists none are still the GPUs NVML saw; so are
        # nvidia-smi -L's beside a table cut off before its GPU rows.
        return None
    # nvidia-smi -L reads the GPUs through NVML, so a list is NVML working when it was printed; GPUs named
    # elsewhere (collect_env, -q) carry more and win.
    gpus = g.gpus or g.listed_gpus
    if not (g.driver_version or g.driver_cuda or gpus):
        return None
    # GPUs only named (in words, in a framework's warning) are stated, not probed: NVML's status says so, and the
    # driver's lines and the rules that need a probed driver do not take them as NVML answering.
    stated = bool(gpus) and not (g.driver_version or g.listed_gpus) and all(x.get("stated") for x in gpus)
    state: dict[str, Any] = {"status": NAMED_IN_TEXT if stated else "ok", "devices": []}
    if g.driver_version:
        state["driver_version"] = g.driver_version
    if g.driver_cuda and re.match(r"^\d+\.\d+$", g.driver_cuda):
        major, minor = g.driver_cuda.split(".")
        state["cuda_driver_version"] = int(major) * 1000 + int(minor) * 10
    for i, gpu in enumerate(gpus[:64]):
        dev: dict[str, Any] = {"index": int(gpu.get("index", i)), "name": str(gpu.get("name") or "")}
        if gpu.get("uuid"):
            dev["uuid"] = str(gpu["uuid"])
        if gpu.get("compute_capability"):
            dev["compute_capability"] = gpu["compute_capability"]
        if gpu.get("memory"):
            dev["memory"] = gpu["memory"]  # from PyTorch's out-of-memory message: "used" is what others held
        state["devices"].append(dev)
    return state


# What only a POSIX system shows: a shared object's soname, an absolute path of its tree, a home-relative path, a `$`
# prompt, a line continued with a backslash, sudo or a Linux package manager, the loader's variable, a distribution.
# Where none is shown, nothing decides the OS.
_POSIX_HINT = re.compile(
    r"\.so(?:\.\d+)*\b|(?<![\w.:\\])/(?:usr|home|opt|etc|lib|lib64|root|tmp|mnt|proc|dev|var|srv|content|workspace|data|scratch"
    r"|bin|sbin|run|media|nfs|gpfs|cvmfs)/|(?<!\S)~/|^\s*(?:\([\w.-]{1,60}\)\s*)?(?:[\w.-]+@[\w.-]+:\S*\s*)?\$\s"
    r"|\bsudo\b|\bapt(?:-get)?\s+install\b|\b(?:dnf|yum|pacman)\b|\bLD_LIBRARY_PATH\b|\bldconfig\b|\bdmesg\b|\bNVRM\b|\s\\\s*$"
    r"|\b(?:Linux|Ubuntu|Debian|Fedora|CentOS|RHEL|Rocky|AlmaLinux|Manjaro|openSUSE|Slurm|srun|sbatch|Colab)\b"
    # Arch Linux with its capital, not a compiler's option ("nvcc -arch=sm_86", "-arch sm_61", "--gpu-architecture")
    r"|(?<![-=\w])(?-i:Arch)\b(?![-=])",
    re.IGNORECASE,
)


def _posix_shown(g: Gathered) -> bool:
    """Whether any pasted line shows a POSIX system (so Linux is no mere assumption for the commands' shell)."""
    return any(_POSIX_HINT.search(line[:2_000]) for _, lines in g.texts for line in lines)


def _usual_name(windows: bool, version: str) -> str:
    """The command that starts the stated Python where the text shows no path: `python` on Windows (the name
    python.org's installer puts on PATH); elsewhere `python3`, except for a stated Python 2, which is `python` (PEP 394, as of 2.7's systems: "python should refer to the same
    target as python2"; CentOS 7 and Ubuntu 14.04/16.04 ship Python 2.7 as /usr/bin/python, and a python3 there,
    where installed, is another interpreter with other packages)."""
    if windows or version.startswith("2."):
        return "python"
    return "python3"


def _python(g: Gathered, placed: list[str]) -> dict[str, Any] | None:
    if not (g.distributions or g.python_version or g.site_packages or g.interpreter):
        return None
    windows = g.system == "Windows"
    version = g.python_version or ""
    major_minor = ".".join(version.split(".")[:2]) if version else ""
    sites = list(g.site_packages)
    # A python.exe shown by a relative path ("python_embeded\\python.exe") names the interpreter, not where it is.
    if not sites and windows and g.interpreter and not g.prefix and re.match(r"^[A-Za-z]:\\", g.interpreter):
        # CPython's Windows layout: <prefix>\python.exe (installer, embeddable) or <prefix>\Scripts\python.exe
        # (a venv), with <prefix>\Lib\site-packages.
        parts = g.interpreter.replace("\\", "/").split("/")[:-1]
        base = "/".join(parts[:-1] if parts and parts[-1].lower() == "scripts" else parts)
        sites = [f"{base}/Lib/site-packages"]
        placed.append(f"site-packages: {sites[0]} (from the interpreter's path: Windows' layout)")
    elif not sites and not windows and not g.prefix and g.interpreter and g.interpreter.endswith("/bin/python"):
        # a venv's (or conda environment's) interpreter by its path, as an activation shows it: CPython's POSIX layout,
        # <prefix>/bin/python beside <prefix>/lib/pythonX.Y/site-packages, not the system's
        base = g.interpreter.removesuffix("/bin/python")
        sites = [f"{base}/lib/python{major_minor or '3'}/site-packages"]
        placed.append(f"site-packages: {sites[0]} (from the interpreter's path: a venv's layout)")
    if not sites:
        if g.prefix:
            base = g.prefix.replace("\\", "/").rstrip("/")
            sites = [f"{base}/Lib/site-packages" if windows else f"{base}/lib/python{major_minor or '3'}/site-packages"]
        else:
            sites = ["C:/Python/Lib/site-packages" if windows else f"/usr/lib/python{major_minor or '3'}/site-packages"]
        placed.append(f"site-packages: {sites[0]} (the text did not show where the packages are installed)")
    data: dict[str, Any] = {
        "version": version,
        # The interpreter the text shows run, or its environment's (gpudoctor.pasted.read): a Windows path on Windows,
        # an absolute one elsewhere (or under ~/, which the shell expands: gpudoctor.cmdline, or under ./, a program's
        # own venv in its folder: read._interpreter_of_webui_check); else the platform's usual name for the version
        # the text states (_usual_name).
        "executable": (
            g.interpreter
            if g.interpreter and (windows or g.interpreter.startswith(("/", "~/", "./")))
            else _usual_name(windows, version)
        ),
        "site_packages": sites,
        # (a version the text did not give is left out, but not the variant a paste names without one: which of
        # onnxruntime and onnxruntime-gpu is installed is the fact, its release a detail)
        "distributions": {k: v for k, v in g.distributions.items() if v or k in VARIANTS},
        "kind": "conda" if g.conda else "system",
    }
    if g.prefix:
        data["prefix"] = g.prefix.replace("\\", "/")
    return data
