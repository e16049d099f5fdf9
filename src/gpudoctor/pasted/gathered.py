"""What the blocks of one paste said, gathered before it becomes a partial snapshot: the one record the readers
(gpudoctor.pasted.read, the cues of gpudoctor.pasted.cues) fill in and gpudoctor.pasted.build writes down."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gpudoctor.parsers.error_texts import ErrorEvidence
from gpudoctor.pasted.distro_traces import Traced


@dataclass
class Gathered:
    """Everything the blocks of one paste (all its sources) said, before it becomes a snapshot."""

    system: str | None = None  # Linux, Windows, Darwin
    release: str = ""
    os_pretty: str | None = None
    traced: Traced | None = None  # the distribution from the paste's traces, where none is named (distro_traces)
    wsl: bool = False
    python_version: str | None = None
    site_packages: list[str] = field(default_factory=list)
    prefix: str | None = None
    conda: bool = False
    distributions: dict[str, str] = field(default_factory=dict)
    conda_builds: dict[str, str] = field(default_factory=dict)
    torch_version: str | None = None
    torch_cuda: str | None = None  # "12.1"; "" for a CPU build
    form_torch: str | None = None  # the torch an issue form's field states ("PyTorch Version: 2.1.1"), as written
    tf_build_info: str | None = None
    driver_version: str | None = None
    driver_cuda: str | None = None
    # Each GPU as the text showed it; "stated": True where only words or a warning named it (no tool listed it).
    gpus: list[dict[str, Any]] = field(default_factory=list)
    listed_gpus: list[dict[str, Any]] = field(default_factory=list)  # nvidia-smi -L: used where nothing else names GPUs
    smi_table: str | None = None
    smi_failure: str | None = None
    nvcc: str | None = None
    proc_driver: str | None = None
    files: dict[str, Any] = field(default_factory=dict)
    errors: list[ErrorEvidence] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    blocks: list[dict[str, Any]] = field(default_factory=list)
    frameworks: list[str] = field(default_factory=list)  # seen at work in tracebacks, versions unknown
    whole: list[str] = field(default_factory=list)  # areas shown whole: "distributions" after a full package list
    lspci: str | None = None
    modules: list[str] = field(default_factory=list)  # kernel modules the text shows loaded (nouveau bound in dmesg)
    smi_table_line: int = -1  # where the last nvidia-smi table ended (in the text read last): a later failure is newer
    smi_failure_line: int = -1
    nvml_mismatch: str | None = None  # the kernel log's NVRM API mismatch line
    wsl_said: bool = False  # the text says WSL
    wsl1_said: bool = False  # the text says WSL 1 (and not WSL 2)
    wsl2_said: bool = False  # the text says WSL 2 in words ("WSL2", "WSL 2")
    wsl_prompt: str = ""  # a POSIX prompt only WSL's shell shows (pasted.read: _WSL_PROMPT), its line
    windows_build: int | None = None
    env: dict[str, str] = field(default_factory=dict)  # variables set on a command line the text shows run
    cues: list[dict[str, str]] = field(default_factory=list)  # what told platform and setting: {"cue", "means", "line"}
    interpreter: str | None = None  # a python.exe the text shows run
    ldconfig: str | None = None  # a whole `ldconfig -p` output (its "N libs found in cache" header shown)
    cluster: str | None = None  # "slurm" where the text shows a job of that scheduler
    windows_side_models: dict[int, str] = field(default_factory=dict)  # a Windows nvidia-smi table pasted in a WSL report
    texts: list[tuple[str, list[str]]] = field(default_factory=list)  # each source's lines as read: what facts cite
    # a source's lines as the file shows them, where they differ from those read (gpudoctor.pasted.blocks.unspace)
    shown: dict[int, list[str]] = field(default_factory=dict)

    def windows_side_models_in_wsl(self) -> bool:
        """A Windows nvidia-smi table (Driver-Model column) in a report about WSL."""
        return bool(self.windows_side_models) and (self.wsl or (self.wsl_said and self.system == "Linux"))
