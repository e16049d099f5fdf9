"""Every fact of a partial snapshot cites the pasted line that says it (issue 28: read all the evidence, invent none).

`cite` walks the facts `build_snapshot` wrote (platform, files, env, commands, nvml, python, what the text showed
missing) and finds, for each, the line(s) of the pasted text that state it: the value as the text spells it (a
version, a path, a GPU's name, a package with its version), or the error line a value was read from. A fact written
because nothing was shown (Linux when no OS was named, `python3`, a site-packages directory nobody pasted) is marked
`assumed` and cites nothing: it was never read. A fact that is neither (no line found) is what the tests look for
(tests/pasted/test_provenance.py): it would be a fact the text does not state.

The lines are those `gpudoctor.pasted.blocks.normalise` reads (quote markers and fences off), numbered from 1 in
their source; each entry is data, shown through the one terminal sanitizer by the renderers.
"""

from __future__ import annotations

import bisect
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gpudoctor.pasted.gathered import Gathered
from gpudoctor.pasted.cues import MACOS_SAID
from gpudoctor.pasted.variants import CONDA_ROW

MAX_CITED = 3  # lines cited per fact: the first that state it
MAX_TEXT = 300  # characters of a cited line kept
# Characters searched per paste beyond the token index (a few hundred whole-text searches of a large paste): the
# citing stays bounded on any input; a fact past it cites no line (only a flood of facts in a huge paste gets there).
MAX_SCANNED = 512 * 1024 * 1024
MAX_CANDIDATES = 1_000  # lines holding a version looked at for its package's name

# The error kinds whose line states a value written elsewhere (nvml, version.py, nvcc): cited for that value.
_DRIVER_CUDA_ERRORS = ("cuda-driver-insufficient", "container-requires-cuda", "driver-too-old-found")
_TORCH_CUDA_ERRORS = (
    "torch-not-compiled-with-cuda",
    "cuda-version-detected-mismatch",
    "companion-built-for",
    "companion-cuda-mismatch",
)
# What names each system, strongest first: the OS by name, then what only it has (a drive letter, a DLL; a POSIX
# path, a shared object).
_SYSTEM_SAID = {
    "Windows": (
        re.compile(r"\bWindows(?![A-Za-z])|\bWin\s?1[01]\b", re.IGNORECASE),
        re.compile(r"(?<![\w])[A-Za-z]:\\|\.dll\b|\.exe\b|\bWDDM\b|\bTCC\b|\bMCDM\b|msvcp|'64_\d+'", re.IGNORECASE),
    ),
    "Linux": (
        re.compile(
            # (Linux also as the end of a distribution's one-word name: AlmaLinux, ArchLinux, KaliLinux)
            r"Linux(?![A-Za-z])|\b(?:Ubuntu|Debian|CentOS|Fedora|Red Hat|RHEL|Rocky|SUSE|WSL2?|Subsystem)(?![A-Za-z])"
            r"|microsoft-standard|-Microsoft\b",
            re.IGNORECASE,
        ),
        re.compile(r"(?<![\w.])/(?:usr|home|opt|proc|etc|mnt|root|data|lib)/|\.so(?:\.\d+)*\b|\bnvidia-smi\b"),
    ),
    "Darwin": (
        re.compile(r"\b(?:macOS|Darwin|Mac OS)\b", re.IGNORECASE),
        # the Mac named as the machine, by the very pattern that read it (pasted.cues.MACOS_SAID): "my Mac laptop",
        # "MacBook Pro", "most intel MAC uses AMD GPU", CJK prose's "的macos"
        MACOS_SAID,
    ),
}


class _Text:
    """The normalised lines of every source, joined once, with an index of whitespace-separated tokens."""

    def __init__(self, texts: list[tuple[str, list[str]]], shown: dict[int, list[str]] | None = None) -> None:
        self.shown = shown or {}  # lines read back (letter-spaced ones) are cited as the file shows them
        self.sources: list[tuple[str, str, list[int], list[str]]] = []
        self.tokens: dict[str, tuple[int, int]] = {}
        self.scanned = 0
        for s, (name, lines) in enumerate(texts):
            starts, at = [], 0
            for n, line in enumerate(lines):
                starts.append(at)
                at += len(line) + 1
                for token in line.split():
                    self.tokens.setdefault(token.strip("'\",;()[]`"), (s, n))
                    if "==" in token:  # pip freeze's name==version: the name alone too
                        self.tokens.setdefault(token.split("==", 1)[0], (s, n))
            self.sources.append((name, "\n".join(lines), starts, lines))
        self.size = sum(len(joined) for _, joined, _, _ in self.sources)

    def _budget(self) -> bool:
        """Whether another whole-text search fits the budget (and counts it)."""
        if self.scanned + self.size > MAX_SCANNED:
            return False
        self.scanned += self.size
        return True

    def cite(self, s: int, n: int) -> dict[str, Any]:
        name, _, _, lines = self.sources[s]
        shown = self.shown.get(s)
        line = shown[n] if shown is not None and n < len(shown) else lines[n]
        return {"source": name, "line": n + 1, "text": line.strip()[:MAX_TEXT]}

    def quote(self, said: str) -> dict[str, Any] | None:
        """The line a message starts on: a message the terminal or a forum wrapped is read with its lines joined,
        so its start is looked for (the text up to the first run of blanks, then shorter prefixes)."""
        said = said.strip()
        for cut in (said[:200], re.split(r"\s{2,}", said)[0][:200], said[:80], said[:40]):
            if (len(cut) >= 8 or cut == said) and (hit := self.find(cut)) is not None:
                return hit
        return None

    def find(self, needle: str) -> dict[str, Any] | None:
        """The first line holding `needle` (a literal, as the text spells it)."""
        needle = needle.strip()
        if not needle:
            return None
        if (hit := self.tokens.get(needle)) is not None:
            return self.cite(*hit)
        if "\n" in needle or not self._budget():
            return None
        for s, (_, joined, starts, _) in enumerate(self.sources):
            at = joined.find(needle)
            if at >= 0:
                return self.cite(s, bisect.bisect_right(starts, at) - 1)
        return None

    def search(self, pattern: re.Pattern[str]) -> dict[str, Any] | None:
        if not self._budget():
            return None
        for s, (_, joined, starts, _) in enumerate(self.sources):
            if m := pattern.search(joined):
                return self.cite(s, bisect.bisect_right(starts, m.start()) - 1)
        return None

    def line_with_all(self, needles: list[str], *, casefold: bool = False) -> dict[str, Any] | None:
        """The first line holding every needle (a package's name and its version on one row)."""
        first = needles[-1]  # the most specific (a version), found through the joined text
        if not self._budget():
            return None
        for s, (_, joined, starts, lines) in enumerate(self.sources):
            at = joined.find(first)
            for _ in range(MAX_CANDIDATES):
                if at < 0:
                    break
                n = bisect.bisect_right(starts, at) - 1
                line = lines[n].casefold() if casefold else lines[n]
                if all((x.casefold() if casefold else x) in line for x in needles):
                    return self.cite(s, n)
                at = joined.find(first, starts[n] + len(lines[n]) + 1)
        return None


def error_places(g: Gathered) -> dict[str, str]:
    """Each error line of `g` with where it starts in the paste, "source:line" (a line the text does not hold as
    read, none): the line a finding over a failure names, so a reader finds it in what they pasted."""
    text = _Text(g.texts, g.shown)
    out: dict[str, str] = {}
    for e in g.errors:
        if e.line and e.line not in out and (hit := text.quote(e.line)) is not None:
            out[e.line] = f"{hit['source']}:{hit['line']}"
    return out


def cite(snap: dict[str, Any], g: Gathered) -> list[dict[str, Any]]:
    """One entry per fact of `snap` (built from `g`): {"fact", "value", "lines": [{"source", "line", "text"}],
    "assumed"}. An assumed fact cites no line; a read one cites the first lines that state it."""
    text = _Text(g.texts, g.shown)
    out: list[dict[str, Any]] = []
    error_lines: dict[str, list[str]] = {}
    for e in g.errors:
        error_lines.setdefault(e.kind, []).append(e.line)

    def add(fact: str, value: Any, found: list[dict[str, Any] | None], *, assumed: bool = False) -> None:
        lines: list[dict[str, Any]] = []
        for hit in found:
            if hit is not None and hit not in lines and len(lines) < MAX_CITED:
                lines.append(hit)
        out.append({"fact": fact, "value": str(value)[:MAX_TEXT], "lines": [] if assumed else lines, "assumed": assumed})

    def errors(*kinds: str) -> list[dict[str, Any] | None]:
        return [text.quote(line) for k in kinds for line in error_lines.get(k, [])[:2]]

    def cues(means: str) -> list[dict[str, Any] | None]:
        return [text.quote(c["line"]) for c in g.cues if c.get("means") == means][:2]

    platform = snap.get("platform") or {}
    system = platform.get("system")
    if g.system is None and system == "Linux":
        add("platform.system", system, [], assumed=True)
    elif system:
        said = next((hit for p in _SYSTEM_SAID.get(system, ()) if (hit := text.search(p)) is not None), None)
        add("platform.system", system, [*cues(system), said])
    if release := platform.get("release"):
        if release == g.release and text.find(release) is not None:
            add("platform.release", release, [text.find(release)] + cues("WSL 2"))
        elif release == g.release and g.windows_build is not None:
            # A WSL 1 kernel named from the Windows build the text shows (4.4.0-<build>-Microsoft, read.py): that line.
            add("platform.release", release, errors("windows-build"))
        else:
            add("platform.release", release, [], assumed=True)  # WSL 2's kernel, Windows 10: placed (pasted.placed)
    if machine := platform.get("machine"):
        add("platform.machine", machine, [], assumed=True)  # AMD64 on Windows: the only build the doctor models

    files = snap.get("files") or {}
    site = ((snap.get("python") or {}).get("site_packages") or [""])[0]
    for path, entry in files.items():
        fact = f"files.{path}"
        if path == "/etc/os-release" and g.traced is not None:
            # (read from traces, each on its line: gpudoctor.pasted.distro_traces)
            add(
                fact,
                f"{g.traced.distro or g.traced.family} {g.traced.release}".strip(),
                [text.find(line) for line in g.traced.lines],
            )
        elif path == "/etc/os-release":
            add(fact, g.os_pretty, [text.find(g.os_pretty or "")])
        elif path == "/proc/driver/nvidia/version":
            add(fact, _first(g.proc_driver), [text.find(_first(g.proc_driver))])
        elif path == "/proc/modules":
            # The kernel log's line of the module binding the GPU (read.py's dmesg reader), or lshw's configuration
            # naming it the device's driver (read.py's lshw reader), not any line naming it; for nouveau, the NVIDIA
            # module's own "probe routine was not called" line too (read.py's _probe_not_called).
            bound = r"\b{0} [0-9a-f]{{4}}:[0-9a-f]{{2}}:[0-9a-f]{{2}}\.\d: (?:NVIDIA|DRM:|fb:)|configuration: .*\bdriver={0}\b"
            probe = r"|NVRM: The NVIDIA probe routine was not called for \d+ device"
            add(
                fact,
                ", ".join(g.modules),
                [text.search(re.compile(bound.format(re.escape(m)) + (probe if m == "nouveau" else ""))) for m in g.modules],
            )
        elif site and path == f"{site}/torch/version.py":
            torch = (snap.get("python") or {}).get("distributions", {}).get("torch", "")
            add(
                fact,
                f"torch {torch}, CUDA {g.torch_cuda or 'None'}",
                [*_version(text, "torch", torch), *_torch_cuda(text, g, torch)],
            )
        elif site and path == f"{site}/tensorflow/python/platform/build_info.py":
            add(fact, "TensorFlow build info", [text.search(re.compile(r"cuda_version|cudnn_version|is_cuda_build"))])
        else:
            add(fact, (entry or {}).get("type", "") if isinstance(entry, dict) else "file", _path(text, path))

    for name, value in (snap.get("env") or {}).items():
        # set on a command line (NAME=value), or printed alone by the shell (echo $LD_LIBRARY_PATH: pasted.cues)
        add(f"env.{name}", value, [text.find(f"{name}={value}") or text.find(value)])

    commands = snap.get("commands") or {}
    if smi := commands.get("nvidia-smi"):
        if smi.get("rc") == 0:
            add("commands.nvidia-smi", "the table", [text.search(re.compile(r"NVIDIA-SMI\s+\d+\.\d+.*Driver Version"))])
        else:
            add("commands.nvidia-smi", _first(smi.get("stdout")), [text.quote(_first(smi.get("stdout")))])
    if nvcc := commands.get("nvcc --version"):
        release = re.search(r"release (\d+\.\d+)", nvcc.get("stdout") or "")
        stated: list[dict[str, Any] | None] = (
            [
                text.search(re.compile(r"Cuda compilation tools, release " + re.escape(release.group(1))))
                # an environment table's CUDA compiler row (detectron2's collect_env: the last line of nvcc -V)
                or text.search(re.compile(r"CUDA compiler\s+(?:Build\s+cuda_|CUDA\s+)" + re.escape(release.group(1))))
                # its release written outside the block (pasted.read.NVCC_SAID: a build tag, "nvcc 12.1")
                or _nvcc_said(text, release.group(1))
            ]
            if release
            else []
        )
        add("commands.nvcc --version", release.group(1) if release else "", stated + errors("cuda-version-detected-mismatch"))
    if commands.get("ldconfig -p"):
        add("commands.ldconfig -p", "the whole cache", [text.search(re.compile(r"^[ \t]*\d+ libs found in cache", re.M))])
    if commands.get("lspci -nn"):
        add("commands.lspci -nn", _first(g.lspci), [text.find(_first(g.lspci))])

    nvml = snap.get("nvml")
    if nvml is not None:
        found: list[dict[str, Any] | None] = []
        if error := nvml.get("error"):
            found.append(text.quote(error))
            add("nvml.error", error, [text.quote(error)])
        if version := nvml.get("driver_version"):
            hits = [text.find(version)]
            found += hits
            add("nvml.driver_version", version, hits)
        if nvml.get("cuda_driver_version") is not None:
            # The message that named it first (cudaDriverGetVersion's 9020), else nvidia-smi's "CUDA Version: 12.2".
            hits = [h for h in errors(*_DRIVER_CUDA_ERRORS) if h is not None]
            if not hits and g.driver_cuda:
                hits = [
                    text.search(re.compile(r"CUDA Version\s*:?\s*" + re.escape(g.driver_cuda) + r"\b"))
                    # nvidia-smi quoted in prose (pasted.read.SMI_CUDA_SAID)
                    or text.search(re.compile(r"nvidia-smi\S*\s.{0,60}?CUDA.{0,20}?" + re.escape(g.driver_cuda) + r"\b", re.I))
                ]
            found += hits
            add("nvml.cuda_driver_version", nvml["cuda_driver_version"], hits)
        for i, dev in enumerate(nvml.get("devices") or []):
            hits = [text.find(dev["name"])] if dev.get("name") else []
            if dev.get("uuid"):
                hits.append(text.find(dev["uuid"]))
            if dev.get("compute_capability") or not dev.get("name"):
                hits += errors("arch-unsupported")
            if dev.get("memory"):
                hits += errors("torch-oom")
            found += hits
            add(f"nvml.devices.{i}", dev.get("name") or f"GPU {dev.get('index')}", hits)
        add("nvml.status", nvml.get("status"), found)

    python = snap.get("python")
    if python is not None:
        if version := python.get("version"):
            add("python.version", version, _python_version(text, version))
        executable = python.get("executable") or ""
        if g.interpreter and executable == g.interpreter:
            add("python.executable", executable, [text.find(executable), *cues("the interpreter the plan must use")])
        else:
            add("python.executable", executable, [], assumed=True)  # the platform's usual name: nothing named one
        for i, path in enumerate(python.get("site_packages") or []):
            if path in g.site_packages:
                add(f"python.site_packages.{i}", path, _path(text, path))
            else:
                add(f"python.site_packages.{i}", path, [], assumed=True)  # placed (pasted.placed)
        for name, version in (python.get("distributions") or {}).items():
            add(f"python.distributions.{name}", version, _version(text, name, version))
        if python.get("kind") == "conda":
            said = text.search(re.compile(r"\[conda\]|conda|anaconda|miniforge|mambaforge", re.I))
            # (or a conda list row of its own, or the path of a conda environment: pasted.read takes .../envs/NAME/ and
            # the installers' own folders for one)
            env_path = re.compile(r"/(?:envs/[^/\s]+|anaconda3|miniconda3|miniforge3|mambaforge)/")
            add("python.kind", "conda", [said or text.search(CONDA_ROW) or text.search(env_path)])
        else:
            add("python.kind", python.get("kind"), [], assumed=True)  # no conda shown: a plain installation
        if prefix := python.get("prefix"):
            add("python.prefix", prefix, _path(text, prefix))

    pasted = snap.get("pasted") or {}
    for missing in pasted.get("missing") or []:
        said = text.find(missing)
        if said is None and (lib := re.fullmatch(r"lib([\w+.-]+)\.so", missing)):
            # the linker names libNAME.so by its option: "ld: cannot find -lcuda" (binutils ld, "-l namespec")
            said = text.find("-l" + lib.group(1))
        if said is None and missing == "libcudnn.so":
            # Paddle's cuDNN wrapper, which names no file (parsers.error_texts' _PADDLE_CUDNN_HANDLE)
            said = text.find("Cannot load cudnn shared library")
        add(f"pasted.missing.{missing}", missing, [said])
    if cluster := pasted.get("cluster"):
        # Each scheduler's cue says which one it is (cues.py): the line of the cue that set this kind.
        means = {"slurm": "a job on a Slurm cluster", "pbs": "a job on a PBS cluster", "lsf": "a job on an LSF cluster"}
        add("pasted.cluster", cluster, cues(means.get(cluster, "")))
    for index, model in ((pasted.get("windows_side") or {}).get("driver_models") or {}).items():
        add(f"pasted.windows_side.driver_models.{index}", model, [text.search(re.compile(r"\b" + re.escape(model) + r"\b"))])
    return out


def _nvcc_said(text: _Text, release: str) -> dict[str, Any] | None:
    """The line stating nvcc's release outside its block (pasted.read.NVCC_SAID): its build tag, or nvcc with it."""
    v = re.escape(release)
    return text.search(re.compile(r"\bcuda_" + v + r"\.r|\bnvcc\b[^\n]{0,40}?(?<![\d.])" + v + r"(?![\d])", re.I))


def unsourced(entries: list[dict[str, Any]]) -> list[str]:
    """The facts read (not assumed) that cite no line: facts the pasted text does not state."""
    return [e["fact"] for e in entries if not e["assumed"] and not e["lines"]]


def _first(text: str | None) -> str:
    return next((line.strip() for line in (text or "").splitlines() if line.strip()), "")


def _path(text: _Text, path: str) -> list[dict[str, Any] | None]:
    """A path as the text spells it: with its own separators, with Windows' backslashes, or its last component."""
    hit = text.find(path) or text.find(path.replace("/", "\\"))
    if hit is None and "/" in path.rstrip("/"):
        hit = text.find(path.rstrip("/").rsplit("/", 1)[1])
    return [hit]


def _version(text: _Text, name: str, version: str) -> list[dict[str, Any] | None]:
    """A package with its version: a row naming both (any of the spellings of its name), else the version where a
    REPL or a message printed it alone."""
    if not version:
        # (a library's variant named without its version, gpudoctor.pasted.variants: the line that installs it, said
        # or run, else the first that names it)
        return [text.line_with_all([name, "install"], casefold=True) or text.line_with_all([name], casefold=True)]
    spellings = {name, name.replace("-", "_"), name.replace("_", "-")}
    if name == "torch":
        spellings |= {"pytorch", "PyTorch"}
    if name == "tensorflow":
        spellings |= {"tf."}
    for spelling in sorted(spellings):  # the row that starts with the name, through the token index
        if (at := text.tokens.get(spelling)) is not None and version in text.sources[at[0]][3][at[1]]:
            return [text.cite(*at)]
    for spelling in sorted(spellings):
        if hit := text.line_with_all([spelling, version], casefold=True):
            return [hit]
    if "+" in version and text.find(version) is None:
        # A local tag the reader gave from what it read (+cpu for a CPU-sized Windows wheel): the public version's line.
        return _version(text, name, version.split("+", 1)[0])
    return [text.find(version)]


def _python_version(text: _Text, version: str) -> list[dict[str, Any] | None]:
    """Python's version: written out ("Python version: 3.10.12"), in a path (python3.10), or Windows' Python310."""
    hit = text.line_with_all(["python", version], casefold=True) or text.find(f"python{version}")
    if hit is None:  # an issue form's answer under its "### Python version" heading
        hit = text.search(re.compile(r"^[ \t]*" + re.escape(version) + r"\b", re.M))
    if hit is None:
        hit = text.search(re.compile(r"[\\/](?:Python|python)" + re.escape(version.replace(".", "")) + r"[\\/]"))
    return [hit]


def _torch_cuda(text: _Text, g: Gathered, torch: str) -> list[dict[str, Any] | None]:
    """Where PyTorch's CUDA (torch.version.cuda) was said: the version's local tag (+cu121, +cpu: on the version's
    own line), a message that printed it, collect_env's row or a REPL answer."""
    if re.search(r"\+(?:cu\d+|cpu)$", torch):
        return []
    hits = [text.quote(e.line) for e in g.errors if e.kind in _TORCH_CUDA_ERRORS]
    return hits + [text.search(re.compile(r"CUDA used to build PyTorch\s*:|version\.cuda"))]
