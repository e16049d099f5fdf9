"""What each pasted block says, gathered into one `Gathered`, then written down as a partial snapshot.

Blocks whose format has a parser in gpudoctor.parsers go through it (nvidia-smi table, nvcc,
/proc/driver/nvidia/version, TensorFlow's build info, error texts); the formats only people paste
(collect_env, package lists, `nvidia-smi -q` as text, jax.print_environment_info(), `ls -l`) are read
here. The snapshot holds only what the text showed, in the places a recorded machine would hold it,
and says `"partial": true`: the doctor then treats everything else as unknown (docs/pasted.md).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Any

from gpudoctor.errors import ParseError
from gpudoctor.facts import (
    CONSOLE_SCRIPT,
    CONTAINER_SAID,
    CPU_INDEX_INSTALL,
    GPU_NAMED,
    IMAGE_RUN,
    JAX_CUDA_SAID,
    LINUX_ONLY_SAID,
    PIP_TYPED,
    PROGRAM_IMAGE,
    SOURCE_CHECKOUT,
    TORCH_CONDA_CPU,
    TORCH_OF_IMAGE,
)
from gpudoctor.host import canonical_name
from gpudoctor.lazypattern import LazyPattern
from gpudoctor.parsers.catalogue import match as catalogue_match
from gpudoctor.parsers.error_texts import ErrorEvidence, extract_evidence
from gpudoctor.pasted.blocks import KINDS, Block, find_blocks, normalise, output_only, unspace
from gpudoctor.pasted.composed import read_compose_ran
from gpudoctor.pasted.cues import linux_side_in_wsl, read_cues, without_ollama_search, without_unanswered
from gpudoctor.pasted.distro_traces import agreed, names_a_distribution, read_traces
from gpudoctor.pasted.failing import read_failing_command
from gpudoctor.pasted.gathered import Gathered
from gpudoctor.pasted.isolated_build import read_isolated_build
from gpudoctor.pasted.printed import loaded_older
from gpudoctor.pasted.variants import read_variants
from gpudoctor.pasted.workloads import read_workloads
from gpudoctor.versions import cuda_from_int, version_key

MAX_SOURCE_CHARS = 16 * 1024 * 1024


@dataclass(frozen=True)
class Source:
    name: str  # the file name, or "-" for standard input
    text: str


def read_sources(sources: list[Source]) -> Gathered:
    """Read every block of every source. Never raises on content: what cannot be read is skipped."""
    g = Gathered()
    outputs: list[list[str]] = []  # each text's output lines (a pasted script's statements blanked)
    for src in sources:
        text = unspace(src.text[:MAX_SOURCE_CHARS])
        if text is not src.text and text != src.text[:MAX_SOURCE_CHARS]:
            g.shown[len(g.texts)] = normalise(src.text[:MAX_SOURCE_CHARS])  # cited as the file shows them
        g.smi_table_line = -1
        for block in find_blocks(text):
            # A form's stated torch yields to a tool's listing of it, read before or after the form.
            stated = block.kind != "issue_form" and g.form_torch is not None and g.distributions.get("torch") == g.form_torch
            if stated:
                del g.distributions["torch"]
            gave = _read_block(g, block)
            if stated and "torch" in g.distributions:
                g.form_torch = None
            elif stated:
                g.distributions["torch"] = g.form_torch or ""
            g.blocks.append(
                {
                    "kind": block.kind,
                    "what": KINDS[block.kind],
                    "source": src.name,
                    "lines": [block.start + 1, block.end],
                    "gave": gave,
                }
            )
        # Messages are read with quote markers and fences taken off (a reply quotes the output with "> ").
        lines = normalise(text)
        g.texts.append((src.name, lines))
        plain = "\n".join(lines)
        # Only output is evidence: the messages inside a pasted script's statements are blanked (blocks.output_only).
        said_lines = output_only(lines)
        outputs.append(said_lines)
        said = "\n".join(said_lines)
        found = extract_evidence(said)
        kinds = {e.kind for e in found} | {e.kind for e in g.errors}
        # The catalogue's messages (catalogue.toml) add what the fixed extractors do not read; one the
        # extractors read already (same kind) is theirs, with the values they parse.
        found += [e for e in catalogue_match(said) if e.kind not in kinds]
        # A cuDNN a program printed it loaded, of an older major than the one the paste says it holds (pasted.printed)
        found += loaded_older(g, said_lines) if "cuDNN" in said else []
        # after every reader of words: a bare CUDA error number is evidence only where nothing else read one
        found += _cuda_errors(said, found, kinds)
        if any(e.get("entry") in _PLUGIN_SAID for e in found):
            # NVIDIA's device plugin logs the NVML failure of its own pod: the node's driver is not shown failing.
            found = [e for e in found if not (e.kind == "nvml" and _DAEMON_LOG_LINE.match(e.line))]
        if any(e.get("entry") == "nvidia-container-cli-load-library-failed" for e in found):
            # The runtime hook's loader on the host missed the driver's NVML: not a library the program or its
            # environment (pip's wheels, LD_LIBRARY_PATH) loads, so not read as one (the entry asks the host).
            found = [e for e in found if not (e.kind == "library-missing" and "nvidia-container-cli" in e.line)]
        if any(e.get("entry") == "nccl-net-plugin-absent" for e in found):
            # NCCL's INFO line of a plugin it did not find quotes the loader's words about libnccl-net.so (or -tuner,
            # -profiler) and goes on with its own transports: no library the program needs is missing.
            found = [e for e in found if not (e.kind == "library-missing" and (e.get("soname") or "").startswith("libnccl-"))]
        # A library the loader missed, then the same text showing the program at work on the GPU: the miss was a
        # warning the program went on from (pasted.read's _reached_after_warning).
        found = _reached_after_warning(found, said_lines)
        # (TensorFlow's start-up lines, catalogue.toml's tf-startup-log, print before anything fails, and the lines that
        # only show a setting: they explain no traceback the paste cuts off)
        # (nor do the lines that only describe: a version stated, a package removed, checks.reported's descriptive kinds)
        from gpudoctor.checks.reported import recognised_failure

        failing = [e for e in found if e.kind not in _STARTUP_LINES and recognised_failure(e)]
        if not failing and (cut := _traceback_cut(lines)):
            # (a program's own top frame runs at module level, or in the main() a wrapper such as Hydra starts the
            # traceback at; a first frame in another function is a worker's, a thread's or a subprocess's inside a
            # library module, which run again alone does nothing: blind set 20's reviewers, DeepFaceLive's CSWBase.py)
            top = _TOP_FRAME.search(cut[1]) is not None
            script = _SCRIPT_FRAME.search(cut[1]) if top else None
            if script is None and 'runpy.py", line' in cut[1]:
                # runpy ran a console script: its launcher's frame follows (the first of them that names one)
                script = next((m for x in lines[-2_000:] if ".exe" in x and (m := _SCRIPT_FRAME.search(x))), None)
            module = None if script else _imported_package(lines)
            found.append(
                ErrorEvidence(
                    "traceback-cut",
                    cut[0],
                    (("script", script.group(1)),) if script else (("module", module),) if module else (),
                )
            )
        if not _GPU_WANTED.search(plain[:1_000_000]):
            # llama.cpp's "BLAS = 0" is a plain CPU build's system info, and insightface's "Applied providers:
            # ['CPUExecutionProvider']" a CPU machine's session: a fault only where the text wants the GPU.
            found = [e for e in found if e.get("entry") not in _CPU_FINE]
        for evidence in found:
            if evidence not in g.errors:
                g.errors.append(evidence)
            if evidence.kind == "nvml" and g.smi_table_line >= 0:
                # A failure printed after the table: the driver broke after it was shown ("works until a
                # daemon-reload"), so the failure is the state the report is about.
                at = text.find(evidence.line)
                if at >= 0 and text.count("\n", 0, at) >= g.smi_table_line:
                    g.smi_failure_line = text.count("\n", 0, at)
        _paths(g, text)
        _text_facts(g, plain)
        read_variants(g, plain)
        read_cues(g, plain)
        read_failing_command(g, plain)
        read_workloads(g, lines)
        read_compose_ran(g, plain)  # (after the specs and logs: their service is the more precise place)
    _unrecognised_failures(g, outputs)
    _plugin_present(g, sources)
    _from_errors(g)
    read_isolated_build(g)  # (after the error texts and the torch they may contradict)
    _wsl_listed(g)
    _pip_installed(g)
    _torch_wheel_downloaded(g)
    _torch_said_moved(g)
    _form_torch_untagged(g)
    _image_torch(g)
    _jax_cuda_said(g)
    _linux_only_asked(g)
    _pip_typed(g)
    _source_checkout(g)
    _no_such_torch(g)
    _not_installed(g)
    _named_gpu(g)
    if g.smi_table or g.nvcc or g.driver_version:
        # A tool's output shows the driver or the toolkit: a form's "CUDA Version" adds nothing to judge (nvidia-smi -q
        # prints the same words).
        g.errors = [e for e in g.errors if e.kind != "cuda-version-said"]
    _distribution_line(g)
    _distribution_traces(g)
    _probe_not_called(g)
    _interpreter_of_site(g)
    _interpreter_of_launcher_frame(g)
    _interpreter_of_runpy(g)
    _interpreter_of_env(g)
    _interpreter_of_path(g)
    _interpreter_of_prompt(g)
    _interpreter_of_launcher(g)
    _interpreter_of_package(g)
    _interpreter_of_portable(g)
    _interpreter_of_webui_frames(g)
    _interpreter_of_installer_frames(g)
    _interpreter_of_installer_scripts(g)
    _interpreter_of_webui_check(g)
    _console_script(g)
    linux_side_in_wsl(g)
    if g.wsl_said and not g.wsl and g.system in (None, "Linux") and not g.release and g.windows_build is None:
        # The text says WSL and nothing else names the platform: a Linux distribution under WSL (GPU access needs
        # WSL 2; build.py records the assumed kernel as placed).
        g.system, g.wsl = "Linux", True
        g.notes.append(
            "WSL 1 from the text's own words (no kernel or Windows build shown)"
            if g.wsl1_said
            else "WSL 2 from the text's own words (WSL named, no kernel or Windows build shown)"
        )
    return g


def _wsl_listed(g: Gathered) -> None:
    """wsl -l -v's row of the default distribution (catalogue.toml's wsl-list-verbose-default): the WSL it runs under,
    which wsl.exe states, wins over the reporter's words ("WSL 2" said beside a table that lists VERSION 1)."""
    listed = next((e for e in g.errors if e.kind == "wsl-version-listed"), None)
    if listed is not None:
        g.wsl_said = True
        g.wsl1_said = listed.get("version") == "1"


def _unrecognised_failures(g: Gathered, outputs: list[list[str]]) -> None:
    """Where nothing read so far is a failure, the failure lines of the GPU stack that no catalogue entry knows
    (gpudoctor.parsers.failure_lines), each with its failing component: the report then names the failure and asks
    about that component (gpudoctor.checks.reported, gpudoctor.pasted.ask) instead of a clean bill. A text with a
    recognised failure keeps that reading alone: its entry knows what the failure means and what to ask."""
    from gpudoctor.checks.reported import recognised_failure
    from gpudoctor.parsers.failure_lines import read_failure_lines

    if any(recognised_failure(e) for e in g.errors):
        return
    known = frozenset(e.line for e in g.errors if e.line)
    # (a library the loader missed before the program reached the GPU is read, as a warning: each line that names it,
    # the log's own beside a reporter's copy, is that reading's, never a failure of its own)
    warned = {(e.get("soname") or "").lower() for e in g.errors if e.kind == WARNED_THEN_READY} - {""}
    for said_lines in outputs:
        named = frozenset(x.strip()[:300] for x in said_lines if warned and any(s in x.lower() for s in warned))
        for evidence in read_failure_lines(said_lines, known | named):
            if evidence not in g.errors:
                g.errors.append(evidence)


# A traceback's first frame in the reporter's own script ('File "dali_vid_test.py", line 26, in <module>'): not a
# package's file (site-packages, dist-packages, a Python's lib), not a REPL's <stdin>; run again, it prints the error.
# (Never a name that starts with "-": python would read it as an option, "-c..." as code to run.)
# Nor the interpreter's own runpy.py (which runs `-m MODULE` and a console script: Windows' python.org layout keeps it in
# <prefix>\Lib, no "python" folder), whose run again is no command; a console script's frame (pip's launcher
# <env>\Scripts\NAME.exe, whose zipped __main__.py imports the package) names the program itself, run as it is.
_SCRIPT_FRAME = re.compile(
    r'^\s*File "((?!-)(?![^"]*(?:site-packages|dist-packages|[\\/]lib[\\/]python|[\\/]runpy\.py"))'
    r'(?:[^"<>]{1,300}\.exe(?=[\\/]__main__\.py")|[^"<>]{1,300}\.py(?<!\.exe[\\/]__main__\.py)))'
    r'(?:[\\/]__main__\.py)?", line \d'
)


_FRAME = re.compile(r'^\s+File "[^"]{1,400}", line \d')
# A frame at a program's top: module level, or main() (where a wrapper's trimmed traceback starts).
_TOP_FRAME = re.compile(r'", line \d{1,6}, in (?:<module>|main)\s*$')

# A traceback of an import typed at Python's prompt: its first frame the REPL's (<stdin>), its second the installed
# package's __init__ run at module level (rapidsai/cuml#5214: `>>> import cuml`; rapidsai/cudf#10308: `import cudf`;
# pytorch/vision#9174: `import torchvision`).
_STDIN_FRAME = re.compile(r'^\s*File "<stdin>", line \d{1,6}, in <module>\s*$')
_PACKAGE_INIT_FRAME = re.compile(
    r'^\s*File "[^"]{0,300}[\\/](?:site|dist)-packages[\\/](?P<package>[A-Za-z_]\w{0,100})[\\/]__init__\.py", '
    r"line \d{1,6}, in <module>\s*$"
)


# A frame of an installed package's module run at module level, by its dotted path under site-packages.
_PACKAGE_MODULE_FRAME = re.compile(
    r'^\s*File "[^"]{0,300}[\\/](?:site|dist)-packages[\\/](?P<module>[A-Za-z_]\w{0,100}(?:[\\/][A-Za-z_]\w{0,100}){0,8})'
    r'\.py", line \d{1,6}, in <module>\s*$'
)


def _imported_package(lines: list[str]) -> str | None:
    """The package whose import the last traceback shows failing at the REPL (_STDIN_FRAME, then _PACKAGE_INIT_FRAME),
    or None: what `python -c "import PACKAGE"` runs again to print the error a cut paste hides."""
    starts = [i for i, line in enumerate(lines[:200_000]) if "Traceback (most recent call last)" in line[:300]]
    if not starts:
        return None
    frames = [line for line in lines[starts[-1] + 1 : starts[-1] + 40] if _FRAME.match(line)]
    if len(frames) >= 2 and _STDIN_FRAME.match(frames[0]):
        m = _PACKAGE_INIT_FRAME.match(frames[1])
        return m.group("package") if m else None
    # A chain of imports from the first frame on (each run at module level: a console script's or a program's, then
    # the modules it imports) that reaches an installed package's __init__: the traceback was cut while that package
    # was being imported, whatever its module-level code called after, so importing it alone fails the same way
    # (hiyouga/LLaMA-Factory#8290: llamafactory-cli's import of peft, cut in peft's own modules; tensorflow/tensorflow
    # #10073: tensorflow's __init__ into pywrap_tensorflow's loader). The innermost such package is the narrowest
    # import that still fails.
    # Where the chain reaches none (a program's import of a package's module, the package's __init__ not shown), the
    # innermost installed module it imports, by its dotted name: importing it imports its parents first, then runs it.
    chain = list(itertools.takewhile(lambda f: f.rstrip().endswith("in <module>"), frames))
    packages = [m.group("package") for f in chain if (m := _PACKAGE_INIT_FRAME.match(f))]
    if packages:
        return packages[-1]
    # (never the first frame: a module run as the program, pip's build hook, is no import to run again)
    modules = [m.group("module") for f in chain[1:] if (m := _PACKAGE_MODULE_FRAME.match(f))]
    return modules[-1].replace("\\", ".").replace("/", ".") if modules else None


def _cuda_errors(said: str, found: list[ErrorEvidence], kinds: set[str]) -> list[ErrorEvidence]:
    """CUDA's errors shown by number or name on any line (gpudoctor.parsers.cuda_errors), as the evidence the
    catalogue's entry for the same error gives where nothing read that error by its words; an error whose number
    decides nothing alone only where nothing else read is a failure (it then heads the NOT DECIDED report)."""
    from gpudoctor.checks.reported import recognised_failure
    from gpudoctor.parsers import cuda_errors

    kinds = kinds | {e.kind for e in found}
    read = [e for e in cuda_errors.evidence(cuda_errors.read(said)) if e.kind not in kinds]
    decided = [e for e in read if e.kind != cuda_errors.UNDECIDED]
    if decided or any(e.kind not in _STARTUP_LINES and recognised_failure(e) for e in found):
        return decided
    return read[:1]


def _traceback_cut(lines: list[str]) -> tuple[str, str] | None:
    """A paste that ends inside a Python traceback, before its error line (every line after the last "Traceback (most
    recent call last):" a frame, indented): a failure whose message was cut off. (Its last line, its first frame), or
    None."""
    # (a traceback an exception's message holds, "ImportError: Traceback (most recent call last):", starts the last one)
    starts = [i for i, line in enumerate(lines[:200_000]) if "Traceback (most recent call last)" in line[:300]]
    if not starts:
        # A traceback pasted without its header ("*bug msg:" then its frames, plans12/1212): the indented lines that
        # end the paste, the first of them a frame ('File "...", line N'), are the same cut.
        tail: list[str] = []
        for line in reversed(lines[-10_000:]):
            if line.strip() and not line.startswith((" ", "\t")):
                break
            if line.strip():
                tail.insert(0, line)
        return (tail[-1].strip()[:300], tail[0]) if tail and _FRAME.match(tail[0]) else None
    tail = [line for line in lines[starts[-1] + 1 :] if line.strip()]
    if not tail:
        return None
    if all(line.startswith((" ", "\t")) for line in tail):
        return tail[-1].strip()[:300], tail[0]
    return _frames_cut(tail)


# The line Python prints after a traceback's frames: the exception's type, dotted, alone or before a colon
# (traceback.format_exception_only). Any other line there means the frames were cut off before it.
_EXCEPTION_LINE = LazyPattern(r"[A-Za-z_][\w.]{0,200}(?::|$)")


def _frames_cut(tail: list[str]) -> tuple[str, str] | None:
    """The frames of a traceback followed by something that is not its exception's line (the reporter's next words,
    another comment of the thread): Python prints the exception right after the last frame, so the paste cut the
    traceback before its error (tests/blind/plans16/cases/1615-*: a frame cut mid-path, then the thread's reply). (Its
    last frame line, its first frame), or None. A fence between the frames and the exception is the paste's own
    markup, skipped; IPython's frames ("Cell In[3], line 1", not indented) are not read here."""
    frames: list[str] = []
    for line in tail[:10_000]:
        if line.lstrip().startswith("```"):
            continue
        if line.startswith((" ", "\t")):
            frames.append(line)
            continue
        if not frames or not _FRAME.match(frames[0]) or _EXCEPTION_LINE.match(line.strip()):
            return None
        return frames[-1].strip()[:300], frames[0]
    return None


_CPU_FINE = frozenset(
    {"ggml-system-info-blas-0", "insightface-cpu-provider-only", "onnxruntime-cpu-package-providers", "apptainer-no-nv-files"}
)
# The frameworks' own lines that they opened a GPU device, which each prints only after its CUDA libraries loaded and
# the GPU answered (catalogue.toml: TensorFlow's "Created device ... GPU:0 with N MB memory", Paddle's "Please NOTE:
# device: 0, GPU Compute Capability: ..."): the program reached the GPU from there on.
GPU_READY = frozenset({"tf-gpu-device-created", "paddle-gpu-device-ready"})
# What a library the loader missed becomes where the program reached the GPU after it: a warning it went on from,
# described, never a failure (checks.reported's _DESCRIPTIVE).
WARNED_THEN_READY = "library-missing-gpu-reached"
# A raised error's line ("OSError: libcudart.so...", Paddle's "RuntimeError: (PreconditionNotMet) The third-party
# dynamic library ..."): the program stopped there, so a device line later in the text is another run's, and the
# failure stays one.
_RAISED = LazyPattern(r"(?:^|\s)(?:[A-Za-z_][\w.]*(?:Error|Exception)\b\s*:|\(PreconditionNotMet\))")


def _reached_after_warning(found: list[ErrorEvidence], lines: list[str]) -> list[ErrorEvidence]:
    """The loader's miss of a library (library-missing) whose every mention in this text comes before a line on which
    a framework says it opened a GPU device (GPU_READY) is a warning the program went on from, not a failure: Paddle's
    dynamic loader only logs "The third-party dynamic library (libcuda.so) ... is not configured correctly" at W level
    for an optional library and goes on (tests/blind/plans18/cases/1803-*: the GPU benchmark then ran 158x faster than
    the CPU one), and TensorFlow registers no GPU device where its CUDA libraries did not load. Such a miss is kept as
    WARNED_THEN_READY, described. A miss named again after the device line (a later failure of the same run: Paddle's
    "Please NOTE" line first, then the cuDNN it could not load, PaddlePaddle/Paddle#50195), a raised error's line, or
    one whose place in the text is not found stays a failure; so does every other failure after the device line."""
    ready = [e for e in found if e.kind in GPU_READY]
    if not ready or not any(e.kind == "library-missing" for e in found):
        return found
    last_ready = max((_line_of(e.line, lines) for e in ready), default=-1)
    out: list[ErrorEvidence] = []
    for e in found:
        soname = (e.get("soname") or "").lower()
        if e.kind == "library-missing" and soname and not _RAISED.search(e.line):
            at = _line_of(e.line, lines)
            named = [i for i, x in enumerate(lines) if soname in x.lower()]
            if 0 <= at < last_ready and named and max(named) < last_ready:
                out.append(ErrorEvidence(WARNED_THEN_READY, e.line, e.values, e.at))
                continue
        out.append(e)
    return out


def _line_of(said: str, lines: list[str]) -> int:
    """The index of the first line that an evidence's line was read from (stripped and cut, parsers.error_texts), or
    -1."""
    return next((i for i, x in enumerate(lines) if said and (x.strip()[:300] == said or said in x)), -1)


# (and reports printed before a failure: ds_report's op table)
_STARTUP_LINES = frozenset(
    {
        "tf-startup-log",
        "tf-gpu-device-created",
        "paddle-gpu-device-ready",
        "library-missing-gpu-reached",
        "deepspeed-op-report",
        # what a line shows of the setting, not of a failure: a traceback frame's program, an allocator's name, a
        # toolkit or Visual Studio folder, CUDA_PATH's value, a library a discovery skipped for the next
        "comfyui-frame",
        "torch-allocator-said",
        "cmake-cudatoolkit-found",
        "visual-studio-instance-said",
        "cuda-path-value",
        "numba-driver-variable-said",
        "cuda-toolkit-folder-said",
        "gpu-library-unloadable",
        # a device line and a CMake configure command: what ran and how it was built (gpudoctor.checks.catalogued.builds)
        "cuda-device-capability-said",
        "cmake-configure-said",
        "xla-build-cuda-said",
        # the reporter's own pip install: the command that ran, never the failure a cut traceback hides
        "pip-install-said",
        "conda-install-said",
    }
)
# The device plugin's advice beside its NVML failure, and a line of its log: klog's header ("E0312 10:01:02.123456
# 1 factory.go:99]") or Go's log before v0.15 ("2022/05/13 23:09:23").
_PLUGIN_SAID = frozenset({"k8s-device-plugin-nvml-init-failed", "k8s-device-plugin-nvml-start-failed"})
_DAEMON_LOG_LINE = LazyPattern(r"\s*(?:[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+ [\w.-]+:\d+\]|\d{4}/\d\d/\d\d \d\d:\d\d:\d\d )")
# The text asks for the GPU: it names one, CUDA, cuBLAS or llama.cpp's n_gpu_layers.
_GPU_WANTED = re.compile(r"\bGPUs?\b|\bCUDA|cuBLAS|n_gpu_layers|\bnvidia\b", re.IGNORECASE)


def _torch_said_moved(g: Gathered) -> None:
    """The torch the reporter says the environment was moved to, where nothing printed the installed one: "after
    update to PyTorch 2.3.1", "since I upgraded torch to 2.4.0", "I updated pytorch to 2.1.2" (a move that happened;
    a question or a plan, "should I update to torch 2.3.1", is not). A companion built before the update is then
    judged against it (gpudoctor.checks.extensions: the release of it built for that torch).

    Its build: the version's own tag, else the command in the text that installed that version: conda's
    pytorch-cuda=X.Y (the metapackage that selects the CUDA X.Y build), pip's +cuXYZ or /whl/cuXYZ index. Where
    none names it, an untagged version on Windows or macOS would read as PyPI's CPU-only wheel: it is not taken."""
    if g.torch_version is not None or "torch" in g.distributions:
        return
    for _name, lines in g.texts:
        text = "\n".join(lines)[:1_000_000]
        moved = _TORCH_MOVED.search(text)
        if moved is None:
            continue
        version = moved.group("version")
        public, _, tag = version.partition("+")
        cuda = ("" if tag == "cpu" else f"{tag[2:-1]}.{tag[-1]}") if tag else None
        for line in lines:
            if cuda is not None:
                break
            if not re.search(rf"\b(?:py)?torch==?{re.escape(public)}(?![\w.])", line[:2_000], re.IGNORECASE):
                continue
            if conda := re.search(r"\bpytorch-cuda\s*=+\s*(\d+\.\d+)\b", line):
                cuda = conda.group(1)
            elif pip := re.search(rf"torch=={re.escape(public)}\+(cpu|cu\d{{2,3}})\b|/whl/(cpu|cu\d{{2,3}})\b", line):
                t = pip.group(1) or pip.group(2)
                cuda = "" if t == "cpu" else f"{t[2:-1]}.{t[-1]}"
        if cuda is None and g.system in ("Windows", "Darwin"):
            return
        g.torch_version = g.distributions["torch"] = version
        g.torch_cuda = cuda
        if "torch" not in g.frameworks:
            g.frameworks.append("torch")
        g.notes.append(f"torch {version}: the version the text says torch was updated to ({moved.group(0)!r})")
        return


# pip's last line of an install that finished (pip's install command: "Successfully installed " and each distribution
# as name-version, pypa/pip src/pip/_internal/commands/install.py @6d309205: `return f"Successfully installed
# {' '.join(summary)}"`). Each is installed now: it is read where no listing named it, and over a listing (pip list,
# pip freeze, conda list, collect_env) shown before it in the same text, which pip's install then changed.
_PIP_INSTALLED = re.compile(r"^[ \t]*Successfully installed[ \t]+(?P<names>\S+(?:[ \t]+\S+){0,200})[ \t]*$")
_DIST_VERSION = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]{0,100}?)-(?P<version>\d[\w.+!]{0,60})$")
_LISTINGS = frozenset({"collect_env", "pip_list", "pip_freeze", "pip_show", "conda_list", "env_rows", "repl"})


def _pip_installed(g: Gathered) -> None:
    for name, lines in g.texts:
        listed_until = max((b["lines"][1] for b in g.blocks if b["source"] == name and b["kind"] in _LISTINGS), default=-1)
        for i, line in enumerate(lines[:200_000]):
            if "Successfully installed" not in line or (m := _PIP_INSTALLED.match(line[:20_000])) is None:
                continue
            for token in m.group("names").split():
                d = _DIST_VERSION.match(token)
                if d is None:
                    continue
                dist = canonical_name(d.group("name"))
                if dist == "torch":
                    continue  # its build is torch's own readers' (a tag, a wheel's size, the index it came from)
                if dist not in g.distributions or i >= listed_until:
                    g.distributions[dist] = d.group("version")


def _form_torch_untagged(g: Gathered) -> None:
    """An issue form's "PyTorch Version: 2.1.1" is the release the reporter typed, not the installed distribution's
    name: people drop the local tag there (+cu121). On Windows or macOS an untagged torch would read as PyPI's
    CPU-only wheel, so, as for a version the reporter says torch was moved to, it is not taken as the installed build
    unless the text shows the build (a tag, torch.version.cuda, a command that installed it); torch stays a framework
    the report names."""
    if g.form_torch is None or g.system not in ("Windows", "Darwin") or g.torch_cuda is not None:
        return
    if "+" in g.form_torch or g.distributions.get("torch") != g.form_torch:
        return
    del g.distributions["torch"]
    if "torch" not in g.frameworks:
        g.frameworks.append("torch")
    g.notes.append(f"torch {g.form_torch}: a form's field without its build tag, not read as the installed build")


# pip's "Downloading torch-1.7.1-cp38-cp38-win_amd64.whl (184.0 MB)": a Windows torch wheel with no local version
# (+cuXYZ) that size is the CPU-only build: PyTorch's Windows CUDA wheels carry their CUDA in the name on its own
# indexes (torch-1.7.1+cu101-cp38-cp38-win_amd64.whl) and weigh more than a gigabyte (the CUDA libraries are inside),
# while the package index's Windows torch, which pip prefers for an untagged version, is CPU-only.
_TORCH_WIN_WHEEL = re.compile(
    r"\b(?:Downloading|Collecting|Processing|Using cached)\s+(?:\S*/)?torch-(?P<version>\d+\.\d+(?:\.\d+)?)-cp\d+-cp\d+m?-win_amd64\.whl"
    r"\s*\((?P<size>\d+(?:\.\d+)?)\s*(?P<unit>kB|MB|GB)\)"
)
_CPU_WHEEL_MAX_MB = 600.0


def _torch_wheel_downloaded(g: Gathered) -> None:
    """The torch pip downloaded, where nothing printed the installed one: an untagged Windows wheel under 600 MB is
    the CPU-only build (its version as `X+cpu`, as pip's index of CPU builds names it)."""
    if g.torch_version is not None or "torch" in g.distributions:
        return
    for _name, lines in g.texts:
        for line in lines:
            m = _TORCH_WIN_WHEEL.search(line[:2_000])
            if m is None:
                continue
            size_mb = float(m.group("size")) * {"kB": 0.001, "MB": 1.0, "GB": 1000.0}[m.group("unit")]
            if size_mb >= _CPU_WHEEL_MAX_MB:
                return  # a CUDA build's size: which CUDA is not in the name
            version = m.group("version")
            g.torch_version = g.distributions["torch"] = f"{version}+cpu"
            g.torch_cuda = ""
            g.system = g.system or "Windows"
            if "torch" not in g.frameworks:
                g.frameworks.append("torch")
            g.notes.append(
                f"torch {version}+cpu: pip downloaded Windows' untagged {m.group('size')} {m.group('unit')} wheel, the CPU-only build"
            )
            return


# (also named with its tag a few words on: "the `nvcr.io/nvidia/pytorch` docker image (i.e., `24.08-py3`)")
_NGC_PYTORCH = re.compile(r"\bnvcr\.io/nvidia/pytorch(?::|`?[^\n:]{0,60}?(?<![\w.])`?)(?P<tag>\d{2}\.\d{2}-py3)\b")
# A wheel file name of a compiled torch companion (flash_attn-2.5.3+cu122torch2.1cxx11abiFALSE-cp310-cp310-linux_x86_64.whl):
# the release the reporter installed, the one a rebuild keeps.
_COMPANION_WHEEL = re.compile(
    r"(?<![\w.-])(?P<name>flash_attn|xformers|torchvision|torchaudio)-(?P<version>\d+(?:\.\d+)+(?:\.post\d+)?)"
    r"(?:\+[\w.]+)?-cp\d+-[\w.-]+?\.whl\b"
)


def _image_torch(g: Gathered) -> None:
    """NVIDIA's PyTorch image named as where it runs (its torch is NVIDIA's own build: gpudoctor.facts.TORCH_OF_IMAGE),
    and the compiled companion whose wheel the text names, each with the line that says so. One wheel name per
    companion only: a report that tried several shows no one installed release."""
    for _name, lines in g.texts:
        for line in lines:
            image = _NGC_PYTORCH.search(line[:2_000])
            if image and len(g.cues) < 64 and not any(c.get("cue") == TORCH_OF_IMAGE for c in g.cues):
                g.cues.append(
                    {"cue": TORCH_OF_IMAGE, "means": f"nvcr.io/nvidia/pytorch:{image.group('tag')}", "line": line.strip()[:300]}
                )
    wheels: dict[str, set[str]] = {}
    for _name, lines in g.texts:
        for line in lines:
            for m in _COMPANION_WHEEL.finditer(line[:2_000]):
                wheels.setdefault(m.group("name").replace("_", "-"), set()).add(m.group("version"))
    for name, versions in wheels.items():
        if len(versions) == 1 and name not in g.distributions:
            (g.distributions[name],) = versions


# JAX's CUDA major as its packages spell it: the plugin's name, jax's extra, a CUDA jaxlib's local tag.
# (and the plugin's module, jax_plugins/xla_cuda12, as a traceback names it)
_JAX_CUDA = re.compile(
    r"\bjax-cuda(\d{2})-(?:plugin|pjrt)\b|\bjax\[cuda(\d{2})(?:_pip|_local)?\]|\bjaxlib(?:[\s:=]+v?\d)?\S*?\+cuda(\d{2})\b"
    r"|\bjax_plugins[./\\]xla_cuda(\d{2})\b"
)


_CONDA_JAX = re.compile(r"\binstall\b.*?(?<![\w-])jax(?:lib)?(?![\w-])")
# jax's cudaNN_local extra: JAX set up to load the machine's own CUDA and cuDNN, not NVIDIA's wheels; or a jaxlib
# whose local tag names its build's majors ("jaxlib v0.4.11.dev20230517+cuda11.cudnn86", google/jax#16038): the CUDA
# major of the cuDNN wheel that fixes a cuDNN older than the build's (gpudoctor.checks.cudnn_wheel)
_JAX_LOCAL = re.compile(r"\bjax\[cuda\d{2}_local\]|\bjaxlib\b.{0,40}?\+cuda\d{2}\.cudnn\d{2,3}\b")
_JAX_DISAGREE = frozenset({"pjrt-plugin-mismatch", "jax-plugin-incompatible", "jax-plugin-api-missing"})


# A package that publishes Linux builds only, asked for on native Windows: pip's install of it, or pip building its
# wheel there. vLLM: "OS: Linux ... vLLM does not support Windows natively" (vllm-project/vllm
# docs/getting_started/installation/gpu.md @4487edc6); its setup.py warns "vLLM only supports Linux platform (including
# WSL) and MacOS.Building on win32" where a build still starts.
# NeMo (nemo_toolkit): "NeMo does not natively support windows 10. Please use WSL 2 to run NeMo on windows" (its
# maintainer, NVIDIA-NeMo/Speech#6960 and #3449): its extras build Linux-only dependencies (pynini's OpenFst, which
# "does not and has never supported Windows", kylebgorman/pynini#91). Asked with pip (NVIDIA-NeMo/Speech#13419: "pip
# install nemo_toolkit['all']" on Windows 11) or told in words with its extra ("I'm installing nemo_toolkit['all']",
# tests/blind/plans19/cases/1910-*); `means` is then the package with the extra asked, its quotes dropped.
_LINUX_ONLY_ASKED = LazyPattern(
    r"\b(?:pip3?|uv pip)(?:\.exe)? install\b[^\n]{0,200}?(?<![\w.\-/\\])(?P<a>vllm|nemo[_-]toolkit(?:\[['\"]?\w{1,20}['\"]?\])?)"
    r"(?![\w\-])"
    r"|\binstall(?:ing|ed)?\s+(?P<d>nemo[_-]toolkit\[['\"]?\w{1,20}['\"]?\])"
    r"|\bBuilding wheels? for (?P<b>vllm)\b|\bFailed (?:to )?build(?:ing)? (?:wheel for )?(?P<c>vllm)\b"
)


def _linux_only_asked(g: Gathered) -> None:
    """On native Windows, the first line asking pip for a package that publishes Linux builds only
    (gpudoctor.facts.LINUX_ONLY_SAID, judged by gpudoctor.checks.windows)."""
    # (WSL merely said does not count: vLLM's own warning names it, "Linux platform (including WSL)")
    if g.system != "Windows" or g.wsl:
        return
    for _name, lines in g.texts:
        for line in lines:
            low = line[:2_000].lower()
            if ("vllm" in low or "nemo" in low) and (m := _LINUX_ONLY_ASKED.search(line[:2_000])):
                asked = next(x for x in m.groups() if x).replace("'", "").replace('"', "")
                g.cues.append({"cue": LINUX_ONLY_SAID, "means": asked, "line": line.strip()[:300]})
                return


# pip typed as a program of its own, as a command or a code span: `pip3 install`, `pip3.9 install`, `pip.exe install`
# (not `python -m pip install`, which names its interpreter)
_PIP_TYPED = LazyPattern(r"(?:^|[\s`'\"$#>])(?P<pip>pip(?:3(?:\.\d{1,2})?)?)(?:\.exe)? install\b")


def _pip_typed(g: Gathered) -> None:
    """Where pip found no release for its interpreter (installer-no-release), the pip the text shows typed bare
    (gpudoctor.facts.PIP_TYPED): which Python that pip belongs to is then the question."""
    if not any(e.kind == "installer-no-release" for e in g.errors):
        return
    for _name, lines in g.texts:
        for line in lines:
            head = line[:2_000]
            if "install" in head and (m := _PIP_TYPED.search(head)) and not head[: m.start("pip")].rstrip().endswith("-m"):
                g.cues.append({"cue": PIP_TYPED, "means": m.group("pip"), "line": line.strip()[:300]})
                return


def _jax_cuda_said(g: Gathered) -> None:
    """Where JAX says its packages disagree (a PJRT API mismatch, a plugin jaxlib refuses) and the text names one CUDA
    major for them (gpudoctor.facts.JAX_CUDA_SAID), with the first line that names it; on native Windows, where JAX
    publishes no CUDA build at all, wherever the text names one (gpudoctor.checks.windows judges it)."""
    windows = g.system == "Windows" and not g.wsl and not g.wsl_said
    # JAX fell back to the CPU in an environment conda built: the major named is the route the fix takes (a fresh
    # environment with jax's pip extra, gpudoctor.checks.reported)
    conda = any(e.kind == "jaxlib-cpu-fallback" for e in g.errors) and any(
        e.kind == "conda-install-said" and _CONDA_JAX.search(e.line) for e in g.errors
    )
    # JAX installed with the _local extra loads a cuDNN older than jaxlib was built with: the major named is the route
    # the fix takes, jax's pip extra of that major, which brings the cuDNN wheel its release needs (jax-ml/jax#16901, a
    # maintainer: "reinstalling using the cuda11_pip or cuda12_pip packages"; gpudoctor.checks.reported, cudnn-too-old)
    local = any(e.kind == "cudnn-version-mismatch" for e in g.errors) and any(
        _JAX_LOCAL.search(line[:2_000]) for _name, lines in g.texts for line in lines
    )
    if not windows and not conda and not local and not any(e.kind in _JAX_DISAGREE for e in g.errors):
        return
    said: dict[str, str] = {}
    for _name, lines in g.texts:
        for line in lines:
            for m in _JAX_CUDA.finditer(line[:2_000]):
                said.setdefault(next(x for x in m.groups() if x), line.strip()[:300])
    if len(said) == 1 and len(g.cues) < 64:
        ((major, line),) = said.items()
        g.cues.append({"cue": JAX_CUDA_SAID, "means": major, "line": line})


# A traceback frame in a compiled companion's own package outside site-packages: a POSIX checkout (~/repo/audio) of
# torchaudio, torchvision, xformers or flash-attn, the package directory, then a module of it.
_CHECKOUT_FRAME = re.compile(
    r"(?<![\w./~-])(?P<dir>~?/[\w.~/-]{1,300}?)/(?P<pkg>torchaudio|torchvision|xformers|flash_attn)/[\w/]{0,200}?\w\.py\b"
)


def _source_checkout(g: Gathered) -> None:
    """Where a traceback runs a compiled companion's Python from its source checkout (gpudoctor.facts.SOURCE_CHECKOUT):
    the checkout, with the first line that shows it. One checkout per companion only."""
    seen: dict[str, dict[str, str]] = {}
    for _name, lines in g.texts:
        for line in lines:
            for m in _CHECKOUT_FRAME.finditer(line[:2_000]):
                where = m.group("dir")
                if re.search(r"(?:site|dist)-packages", where):
                    continue
                entry = {"cue": SOURCE_CHECKOUT, "means": where, "package": m.group("pkg").replace("_", "-")}
                entry["line"] = line.strip()[:300]
                prior = seen.setdefault(entry["package"], entry)
                if prior["means"] != where:
                    prior["means"] = ""  # two checkouts of it: none is the one
    for entry in seen.values():
        if entry["means"] and len(g.cues) < 64:
            g.cues.append(entry)


def _not_installed(g: Gathered) -> None:
    """A `name==version` the installer found no distribution for (pip's "No matching distribution found for
    torch==2.0.0", catalogue.toml's installer family) was asked for, not installed: the same pin read elsewhere in the
    text (a requirements file's line, a command) is not the installed version."""
    for e in g.errors:
        if e.kind != "installer-no-release" or "==" not in (e.get("requirement") or ""):
            continue
        name, _, version = (e.get("requirement") or "").partition("==")
        name = canonical_name(name)
        if g.distributions.get(name) == version:
            del g.distributions[name]
            if name == "torch" and g.torch_version == version:
                g.torch_version = None


def _no_such_torch(g: Gathered) -> None:
    """A torch version no PyTorch release has, beside a companion built for a release the matrix knows ("torch 7.0+cu118"
    typed beside "torchaudio 2.7.0+cu118", pytorch/pytorch#153944), is a slip of the hand, not the installed version: it
    is not read, so no finding rests on it (a companion built for "another" torch, a downgrade from 7.0), and a note
    says so. A version newer than the matrix with no companion to contradict it may be a release the matrix has not
    caught up with, and stays."""
    stated = g.distributions.get("torch")
    if not stated:
        return
    from gpudoctor.matrix import load_matrix  # the bundled tables, read once: only a paste with torch in it asks

    matrix = load_matrix()
    newest = matrix.torch_releases[-1].version if matrix.torch_releases else None
    if newest is None or matrix.torch_release(stated) is not None or version_key(stated) <= version_key(newest):
        return
    named = [
        (name, version, r.torch[-1])
        for name, version in g.distributions.items()
        for r in matrix.companion_releases(name)
        if r.version == version.split("+", 1)[0] and matrix.torch_release(r.torch[-1]) is not None
    ]
    if not named:
        return
    name, version, torch = named[0]
    del g.distributions["torch"]
    if g.torch_version == stated:
        g.torch_version = None
    g.notes.append(
        f"torch {stated} as written is no PyTorch release (the newest known is {newest}), and {name} {version} beside it "
        f"is built for torch {torch}: the installed torch's version is unknown"
    )


# A GPU model named in the reporter's words: "a Tesla K40m", "Graphics card: rtx4090", "nvidia 2070", "GeForce RTX 3060
# Ti". Only brand words or a series make a name (RTX/GTX/GT with a number, Tesla/Quadro/TITAN with a model, NVIDIA
# with a four-digit GeForce number, a three-digit A/H/B data-centre part): a bare number or "L4" is too often something
# else.
_NAMED_GPU = re.compile(
    # Markdown's emphasis may wrap the name ("_GeForce GTX 1080 Ti_", "__RTX 4090__"): underscores that open or close a
    # word are no part of an identifier, so they neither start nor end the name ("gtx_1080_results" still does not match)
    r"(?:(?<![\w.-])|(?<=(?<![\w.-])_)|(?<=(?<![\w.-])__))(?:"
    # NVIDIA's workstation Ampere parts are "RTX A" and a number (RTX A2000 to A6000: compat_matrix/gpu_arch.toml's rows)
    r"(?:NVIDIA[ \t]+)?RTX[ \t]+(?P<ws>A[1-9]\d00)"
    r"|(?:NVIDIA[ \t]*)?(?:GeForce[ \t]*)?(?P<series>RTX|GTX|GT)[ \t]*-?[ \t]*(?P<num>\d{3,4})(?:[ \t]*(?P<sfx>Ti|SUPER))?"
    r"|(?:NVIDIA[ \t]+)?(?P<brand>Tesla|Quadro|TITAN)[ \t]+(?P<model>(?:RTX[ \t]+)?[A-Z]{0,2}\d{1,4}[A-Z]{0,2}|Xp?|V|RTX)"
    r"|NVIDIA[ \t]+(?P<bare>[1-5]0[5-9]0|16[56]0)(?:[ \t]*(?P<bsfx>Ti|SUPER))?"
    # and the Volta and Pascal data-centre parts without "Tesla" ("I only tried with V100"): no other product or
    # version is spelled V100 or P100
    r"|(?:NVIDIA[ \t]+)?(?P<dc>[AHB][1-9]00|V100S?|P100)"
    # a GeForce number the reporter says they own ("I have a 3060", "my 3090 Ti"): the owning words make it a card
    r"|(?:i[ \t]+have|i've[ \t]+got|i[ \t]+use|my)[ \t]+(?:an?[ \t]+)?(?P<owned>[1-5]0[5-9]0|16[56]0)(?:[ \t]*(?P<osfx>Ti|SUPER))?"
    r"(?![ \t]*(?:mhz|hz|mb|gb|w|rpm|x\d)\b)"
    r")(?!(?!_{1,2}(?!\w))[\w-]|\.\w)",  # a sentence's full stop may follow, not a version's or a file's dot
    re.IGNORECASE | re.ASCII,  # ASCII words: "nvidia 2070显卡" names the 2070 (a CJK word may follow without a space)
)


def _named_gpu(g: Gathered) -> None:
    """The GPU the reporter names in words, where no output of a tool shows one (nvidia-smi, collect_env, PyTorch's
    warning win): written as spelled, with the compute capability of its row in compat_matrix/gpu_arch.toml (NVIDIA's
    CUDA GPUs page), so that the builds and toolkits stated beside it are judged against it.

    Several models named are all the machine's where one line says it has them ("I have an RTX 3090 and a GTX 1080
    Ti"); otherwise (a comparison, "works on my 3090, not on the 1080") which one is this machine's is not said: each
    is then a cue (GPU_NAMED) with its line, and none a device."""
    if g.gpus or g.listed_gpus or g.smi_failure:
        return
    if g.smi_table:
        from gpudoctor.parsers.nvidia_smi_text import parse_nvidia_smi_table

        # an nvidia-smi table shows the GPUs; its header line alone (a paste cut after "Driver Version: ... CUDA
        # Version: ...") shows none, and then the reporter's "GPU: Tesla V100S" is the only name of the machine's GPU
        if parse_nvidia_smi_table(g.smi_table).gpus:
            return
    from gpudoctor.matrix import load_matrix  # the bundled tables, read once: only a paste naming a GPU asks

    matrix = load_matrix()
    # the matrix row's name -> (as spelled, compute capability, count, the line naming it, where in it)
    found: dict[str, tuple[str, str, int, str, int]] = {}
    for _, lines in g.texts:
        for line in lines[:_MAX_NAMED_LINES]:
            for m in _NAMED_GPU.finditer(line[:2000]):
                if _NOT_YET.search(line[max(0, m.start() - 60) : m.start()]):
                    continue  # a GPU the reporter means to try or buy is not the machine's
                for candidate in _gpu_candidates(m):
                    row = matrix.gpu_for_name(candidate)
                    if row is not None:
                        spelled = m.group("owned") and m.group(0)[m.start("owned") - m.start() :]  # the number on
                        count = _gpu_count(line[max(0, m.start() - 40) : m.start()])
                        found.setdefault(row.name, ((spelled or m.group(0)).strip(), row.cc, count, line, m.start()))
                        break
    if not found:
        return
    lines_naming = {line for _, _, _, line, _ in found.values()}
    line, first = next(iter(lines_naming)), min(at for *_, at in found.values())
    if len(found) > 1 and not (len(lines_naming) == 1 and _has_them(line[:2000], first)):
        for row_name, (_spelled, cc, _count, line, _at) in found.items():
            entry = {"cue": GPU_NAMED, "means": f"{row_name} (compute capability {cc})", "line": line.strip()[:300]}
            if entry not in g.cues and len(g.cues) < 64:
                g.cues.append(entry)
        return
    for row_name, (spelled, cc, count, _line, _at) in found.items():
        for _ in range(count):
            g.gpus.append({"index": len(g.gpus), "name": spelled, "compute_capability": cc, "stated": True})
        g.notes.append(f"GPU {spelled!r} named by the reporter: the matrix's {row_name} (compute capability {cc})")


# A line saying the machine has the GPUs it names: words of having just before the first model ("where I have a Tesla
# K80 and two Tesla K40c cards", "my PC has a 2080 + a 3060", "a server with 2x A100 and 1x H100"), and no word of a
# comparison or of another machine on the line ("works on", "vs", "than", "my friend's", "tried"). "I have verified the
# code with ..." is no having: the words must lead straight to the GPU.
_HAVING = re.compile(
    r"\b(?:i\s+have|i've\s+got|i\s+got|we\s+have|(?:machine|pc|computer|system|server|rig|workstation|laptop|box|node)"
    r"\s+(?:has|have|with))\s+(?:(?:an?|one|two|three|four|\d{1,2}\s*[x\u00d7]?|the)\s+)?(?:NVIDIA\s+)?$",
    re.IGNORECASE,
)
_COMPARED = re.compile(
    r"\b(?:vs\.?|versus|than|instead|works?\s+(?:on|with|fine)|not\s+on|but\s+not|other|another|friend'?s?|colleague'?s?"
    r"|tried|switch(?:ed)?|replac\w*|upgrad\w*|previous|used\s+to)\b",
    re.IGNORECASE,
)


# Words of intent just before a GPU's name: the reporter will try it, means to buy or rent it ("I'll try A100 later",
# "going to buy an RTX 4090", "planning to switch to a 3090"). That GPU is not the one the failure ran on.
_NOT_YET = re.compile(
    r"\b(?:i'?ll|i\s+will|we'?ll|we\s+will|going\s+to|gonna|plan(?:ning)?\s+to|want\s+to|thinking\s+of|considering)"
    r"\s+(?:also\s+)?(?:try(?:ing)?|test(?:ing)?|buy(?:ing)?|get(?:ting)?|rent(?:ing)?|order(?:ing)?|switch(?:ing)?\s+to"
    r"|mov(?:e|ing)\s+to|upgrad(?:e|ing)\s+to)\s+(?:(?:it|this|on|with|an?|the|some|one|two|\d{1,2}\s*x?)\s+){0,3}"
    r"(?:NVIDIA\s+)?$",
    re.IGNORECASE,
)


def _has_them(line: str, first: int) -> bool:
    """Whether `line` says the machine has every GPU it names (the first named at `first`)."""
    return _HAVING.search(line[max(0, first - 80) : first]) is not None and _COMPARED.search(line) is None


_MAX_NAMED_LINES = 5000
# How many of the GPU the reporter says the machine has, in the words just before its name: "4x A100", "8 × H100",
# "a server with 4 A100", "two RTX 3090". A bare number must be a multiplier or follow words of having ("with",
# "have", "and": "a Tesla K80 and two Tesla K40c"), so that "CUDA 11 A100" or "Python 3 A100" is no count. At most
# 16: a machine's, not a cluster's.
_NUMBER_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}
_GPU_COUNT = re.compile(
    r"(?:\b(?P<mult>\d{1,2})[ \t]*[x\u00d7][ \t]*"
    r"|\b(?:with|have|has|had|got|using|uses|use|on|are|and)[ \t]+(?P<said>\d{1,2}|two|three|four|five|six|seven|eight)[ \t]+)"
    r"(?:NVIDIA[ \t]+)?$",
    re.IGNORECASE,
)


def _gpu_count(before: str) -> int:
    m = _GPU_COUNT.search(before)
    if m is None:
        return 1
    said = (m.group("mult") or m.group("said")).lower()
    n = _NUMBER_WORDS.get(said) or int(said)
    return n if 1 <= n <= 16 else 1


def _gpu_candidates(m: re.Match[str]) -> list[str]:
    """The matrix names a match may stand for: "rtx4090" -> "GeForce RTX 4090"; "nvidia 2070" -> RTX, else GTX; "RTX
    A5000" -> the workstation part."""
    if m.group("ws"):
        return [f"RTX {m.group('ws').upper()}"]
    if m.group("series"):
        return [f"GeForce {m.group('series').upper()} {m.group('num')} {_suffix(m.group('sfx'))}".strip()]
    if m.group("brand"):
        return [f"{m.group('brand')} {m.group('model')}"]
    if m.group("bare") or m.group("owned"):
        rest = f"{m.group('bare') or m.group('owned')} {_suffix(m.group('bsfx') or m.group('osfx'))}".strip()
        return [f"GeForce RTX {rest}", f"GeForce GTX {rest}"]
    return [m.group("dc")]


def _suffix(sfx: str | None) -> str:
    """A model's suffix as NVIDIA spells it ("rtx2080ti" is the RTX 2080 Ti, not the 2080): Ti, SUPER."""
    return "" if not sfx else "Ti" if sfx.lower() == "ti" else "SUPER"


_PLUGIN_PATH = re.compile(r"jax_plugins[\\/](?P<plugin>xla_cuda\d+)[\\/]")


def _plugin_present(g: Gathered, sources: list[Source]) -> None:
    """A traceback that runs inside jax_plugins/xla_cudaNN: the CUDA plugin is installed and failed to load. JAX's
    "a CUDA-enabled jaxlib is not installed" after it is then not a missing CUDA jaxlib (its libraries did not
    load), so that reading is withdrawn for the plugin's failure."""
    plugin = next((m for src in sources if (m := _PLUGIN_PATH.search(src.text[:MAX_SOURCE_CHARS]))), None)
    if plugin is None:
        return
    g.notes.append(f"the JAX CUDA plugin is installed (a traceback runs in jax_plugins/{plugin.group('plugin')})")
    if any(e.kind == "jaxlib-cpu-fallback" for e in g.errors):
        g.errors = [e for e in g.errors if e.kind != "jaxlib-cpu-fallback"]
        if not any(e.kind == "jax-cuda-plugin-failed" for e in g.errors):
            g.errors.append(ErrorEvidence("jax-cuda-plugin-failed", plugin.group(0), (("plugin", plugin.group("plugin")),)))


_TORCH_TAGGED = re.compile(
    r"(?<![\w.-])(?:py)?torch(?:-|==|[ \t]?)(?P<version>\d+\.\d+(?:\.\d+)?)\+(?P<tag>cpu|cu\d{2,3})(?![\w.])"
    r"(?![ \t]+with[ \t]+CUDA)",  # (xFormers' "built for: PyTorch 2.0.0+cu118 with CUDA 1108" is not the installed one)
    re.IGNORECASE,
)
# The same stated as a line of its own, the way people list their environment ("- torch 2.8.0+cu128", "PyTorch
# version: 2.8.0+cu128", "torch: 2.1.0+cpu"), or the version alone ("- 2.8.0+cu128") with the local tag only PyTorch's
# own wheels carry (torch, torchvision, torchaudio: +cu128, +cpu). The whole line is the statement: inside a sentence
# the version may be what a companion was built for ("PyTorch 2.0.0+cu118 with CUDA 1108 (you have 2.0.0+cpu)"). The
# version alone is read as torch only where the number is a torch release the matrix knows (torchvision's 0.x is none;
# torchaudio's are torch's own numbers, built for that torch with the same tag).
_TORCH_LISTED = re.compile(
    r"^[ \t]*(?:[-*\u2022][ \t]*)?(?P<named>(?:py)?torch(?:[ \t]+version)?[ \t]*[:=]?[ \t]*)?"
    r"(?P<version>\d+\.\d+\.\d+)\+(?P<tag>cpu|cu\d{2,3})[ \t]*$",
    re.IGNORECASE,
)

# A program's own report of its torch copied between quotes into a sentence (a web UI's System Info: 'it says
# "2.0.0+cpu Autocast half"'): the quoted value opens with the version and PyTorch's CPU tag. Only +cpu, and only a torch
# release the matrix knows: a tagged version quoted for a CUDA build may name what a companion was built for.
_TORCH_QUOTED_CPU = re.compile(r"[\"\u201c'](?P<version>\d+\.\d+\.\d+)\+(?P<tag>cpu)(?![\w.+])")


def _torch_release(version: str) -> bool:
    from gpudoctor.matrix import load_matrix  # the bundled tables, read once: only a tagged version alone asks

    return load_matrix().torch_release(version) is not None


# pyannote.audio's check of a checkpoint against the running libraries (pyannote/pyannote-audio
# pyannote/audio/core/model.py @000047de, Model.check_version: f"Model was trained with {library} {theirs}, yours is
# {mine}. ", `mine` being torch.__version__): "yours" is the installed torch, as torch prints its version.
_TORCH_YOURS = re.compile(
    r"\bModel was trained with torch[ \t]+\S{1,40},[ \t]+yours is[ \t]+"
    r"(?P<version>\d+\.\d+\.\d+)(?:\+(?P<tag>cpu|cu\d{2,3}))?(?![\w+]|\.\w)"  # (the sentence's own full stop follows)
)


def _torch_yours(g: Gathered, text: str) -> None:
    """The torch pyannote.audio says is installed. Untagged, it is a build from the package index (torch.__version__
    of PyTorch's own index builds carries +cuXYZ or +cpu): on Linux the release's CUDA build, read as such where the
    release is known; on Windows or macOS it would be the CPU-only wheel and is not taken, as for a form's version."""
    yours = _TORCH_YOURS.search(text[:1_000_000])
    if yours is None:
        return
    version, tag = yours.group("version"), (yours.group("tag") or "").lower()
    if not tag and g.system in ("Windows", "Darwin"):
        return
    g.torch_version = g.distributions["torch"] = f"{version}+{tag}" if tag else version
    if tag and g.torch_cuda is None:
        g.torch_cuda = "" if tag == "cpu" else f"{tag[2:-1]}.{tag[-1]}"
    if "torch" not in g.frameworks:
        g.frameworks.append("torch")
    g.notes.append(f"torch {g.torch_version}: the installed torch, as pyannote.audio's checkpoint check says ('yours is')")


_TORCH_MOVED = re.compile(
    r"\b(?:(?:after|since)[ \t]+(?:(?:an?|the|i|we|my)[ \t]+)?(?:updat|upgrad)(?:e|ed|ing)|i[ \t]+(?:have[ \t]+)?(?:updated|upgraded))"
    r"[ \t]+(?:(?:py)?torch[ \t]+to|to[ \t]+(?:py)?torch)[ \t]+v?(?P<version>\d+\.\d+\.\d+(?:\+(?:cpu|cu\d{2,3}))?)(?![\w.+])",
    re.IGNORECASE,
)


# A CUDA toolkit's library directory the text shows (an RPATH, an ls, a module's prefix): a path ending in lib64 or lib
# with a CUDA version in a component named for CUDA (/usr/local/cuda-12.2/lib64, .../cudacore/12.2.2/lib64). Read per
# word of a line (split on blanks, ":" and quotes first), so no pattern walks back over a long line.
_WORD_SPLIT = re.compile(r"[\s:'\"=,;()\[\]`]+")
_CUDA_LIB_DIR = re.compile(r"^/[\w.+/-]{1,300}/lib(?:64)?$")
_CUDA_DIR_VERSION = re.compile(
    r"/[\w+-]*cuda[\w+-]*?(?:[/-]v?|/[\w+-]{1,40}/)(?P<cuda>\d{1,2}\.\d)(?:\.\d+)?(?=/)", re.IGNORECASE
)


def _cuda_lib_dirs(g: Gathered, text: str) -> None:
    seen: set[str] = set()
    for line in text.splitlines():
        if len(seen) >= 4:
            return
        if "/lib" not in line or "cuda" not in line.lower():
            continue
        for word in _WORD_SPLIT.split(line[:4000]):
            word = word.rstrip("/")
            if word in seen or not _CUDA_LIB_DIR.match(word) or _ANONYMISED.search(word):
                continue
            if m := _CUDA_DIR_VERSION.search(word):
                seen.add(word)
                g.errors.append(
                    ErrorEvidence("cuda-lib-dir-said", line.strip()[:300], (("cuda", m.group("cuda")), ("path", word)))
                )


# A shared library's file the text shows where `find / -name 'libcudnn*'`, `ls -l` or `locate` printed it: a line that is
# only an absolute path to a lib*.so[.N...] (an ls -l row: its mode first, a link's "-> target" after). A library the
# loader could not open that the text shows on disk is there and off the loader's path (gpudoctor.planner.remedy,
# shown_library_dir); an error line naming a path (a library that did load) is no such listing.
_LIB_FILE_LINE = re.compile(
    r"^(?:[-l][rwxsStT-]{9}[.+@]?[ \t][^\n]{0,200}?[ \t])?(?P<path>/[\w.+@~/-]{0,300}/(?P<name>lib[\w+-]{1,80}\.so(?:\.\d{1,6}){0,4}))"
    r"(?:[ \t]+->[ \t]+\S{1,300})?$"
)


def _library_files(g: Gathered, text: str) -> None:
    if ".so" not in text:
        return
    seen: set[str] = set()
    for line in text.splitlines():
        if len(seen) >= 16:
            return
        stripped = line.strip()
        if ".so" not in stripped or stripped[:1] not in "/-l" or len(stripped) > 600:
            continue
        m = _LIB_FILE_LINE.match(stripped)
        if m is None or m.group("path") in seen or _ANONYMISED.search(m.group("path")):
            continue
        seen.add(m.group("path"))
        g.errors.append(
            ErrorEvidence("library-file-said", stripped[:300], (("path", m.group("path")), ("name", m.group("name"))))
        )


# detectron2's environment table (detectron2/utils/collect_env.py @16a47a98): its "CUDA compiler" row is the last line of
# `nvcc -V` ("Build cuda_11.0_bu.TC445_37.28845127_0"; builds of the extension print "CUDA 11.0"), its "PyTorch" row
# torch's version and directory ("1.7.0+cu110 @/usr/local/lib/python3.6/dist-packages/torch").
_D2_NVCC = re.compile(r"^[ \t]*CUDA compiler[ \t]+(?:Build[ \t]+cuda_|CUDA[ \t]+)(?P<v>\d{1,2}\.\d)(?!\d)", re.M)
_D2_TORCH = re.compile(r"^[ \t]*PyTorch[ \t]+(?P<v>\d+\.\d+\.\d+(?:\+\w+)?)[ \t]+@/\S{0,300}?/torch[ \t]*$", re.M)


# A row of the same table for a package imported from a source checkout ("detectron2  0.2.1 @/workspace/detectron2/
# detectron2"): the package's directory inside its checkout, not in site-packages, so the checkout is where it builds.
_D2_CHECKOUT = re.compile(
    r"^[ \t]*(?P<pkg>[A-Za-z][\w-]{0,60})[ \t]+\d[\w.+]{0,40}[ \t]+@(?P<dir>/[\w.~/-]{1,300}?)/(?P=pkg)/?[ \t]*$", re.M
)


# A conda package as conda's transaction prints it: channel/subdir::name-version-build ("pytorch/win-64::pytorch-1.10.0-
# py3.8_cpu_0"; conda/conda conda/models/records.py @6d084895, PackageRecord.dist_str: "%s%s::%s-%s-%s" of the channel,
# "/" + subdir, name, version and build): what the solver put, or puts, into a conda environment, with the build string
# that names a CPU or a CUDA build.
_CONDA_DIST = re.compile(
    r"(?<![\w/.-])(?:[\w.-]{1,100}/)?(?:noarch|(?:win|linux|osx)-[\w]{2,8})::"
    r"(?P<name>[a-z0-9][a-z0-9_.-]{0,80}?)-(?P<version>\d[\w.]{0,40}?)-(?P<build>[\w.]{1,80})(?![\w.-])"
)


def _conda_dists(g: Gathered, text: str) -> None:
    if "::" not in text:
        return
    for m in _CONDA_DIST.finditer(text[:1_000_000]):
        g.conda = True
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.end())
        _conda_row(g, m.group("name"), m.group("version"), m.group("build"), text[start : end if end >= 0 else len(text)])


def _environment_table(g: Gathered, text: str) -> None:
    if "@/" in text:
        for row in _D2_CHECKOUT.finditer(text):
            pkg, where = row.group("pkg"), row.group("dir")
            if pkg in ("PyTorch", "torch", "torchvision") or re.search(r"(?:site|dist)-packages", where):
                continue
            if len(g.cues) < 64 and not any(c.get("cue") == SOURCE_CHECKOUT and c.get("package") == pkg for c in g.cues):
                g.cues.append({"cue": SOURCE_CHECKOUT, "means": where, "package": pkg, "line": row.group(0).strip()[:300]})
    if g.nvcc is None and (m := _D2_NVCC.search(text)):
        g.nvcc = f"Cuda compilation tools, release {m.group('v')}, V{m.group('v')}\n"
        g.notes.append(f"nvcc {m.group('v')}: the CUDA compiler row of an environment table")
    if "torch" not in g.distributions and (m := _D2_TORCH.search(text)):
        g.distributions["torch"] = m.group("v")
        g.torch_version = g.torch_version or m.group("v")


# A pip or uv command that installs torch from PyTorch's CPU-only index ("uv pip install torch==2.6.0
# torchvision==0.21.0 --index-url https://download.pytorch.org/whl/cpu"), and the installer's own line after it that
# it finished: pip's "Successfully installed" / "Requirement already satisfied", uv's "Installed N packages" /
# "Audited N packages" (uv audits what is installed already and satisfies the pins: a CPU build put there by the same
# installer's earlier run). An error after it, or no outcome shown, says nothing about what is installed.
_CPU_INDEX_INSTALL = re.compile(
    r"\b(?:uv[ \t]+)?pip3?[ \t]+install[ \t][^\n]{0,600}?(?:--index-url|-i)[ =\t]+\S{0,200}/whl/cpu/?(?![\w/])", re.IGNORECASE
)
_INSTALL_DONE = re.compile(
    r"^[ \t]*(?:Successfully installed\b|Requirement already satisfied:[ \t]*torch\b|(?:Installed|Audited)[ \t]+\d+[ \t]+packages?\b)",
    re.IGNORECASE,
)
_INSTALL_FAILED = re.compile(r"^[ \t]*(?:ERROR|error)\b|No matching distribution|Could not find a version", re.IGNORECASE)
_PINNED = re.compile(r"(?<![\w.-])(torch|torchvision|torchaudio)==(\d+\.\d+(?:\.\d+)?)(?![\w.+])")


# A build script's own line naming the torch it builds against: apex's setup.py prints
# "torch.__version__  = {}" before it compiles (NVIDIA/apex setup.py @705cba91), as do the setup scripts copied from it
# (DCNv2's). Only a whole line with a version: a line of code that prints it has no version after the sign.
_BUILD_TORCH = re.compile(r"^[ \t\"]*torch\.__version__[ \t]*=[ \t]*(?P<v>\d+\.\d+(?:\.\d+)?(?:\+\w+)?)[ \t\"]*$", re.M)


def _build_script_torch(g: Gathered, text: str) -> None:
    if "torch" in g.distributions or not (m := _BUILD_TORCH.search(text)):
        return
    g.distributions["torch"] = m.group("v")
    g.torch_version = g.torch_version or m.group("v")
    g.notes.append(f"torch {m.group('v')}: the torch a build script builds against, as it printed it")


def _cpu_index_install(g: Gathered, text: str) -> None:
    """torch (and its companions) pinned in a command that installed them from PyTorch's CPU index: +cpu builds."""
    lines = text[:1_000_000].splitlines()
    for i, line in enumerate(lines):
        command = _CPU_INDEX_INSTALL.search(line[:2_000])
        if command is None:
            continue
        pins = dict(_PINNED.findall(command.group(0)))
        if "torch" not in pins:
            continue
        outcome = None
        for after in lines[i + 1 : i + 8]:
            if _INSTALL_FAILED.search(after[:2_000]):
                outcome = False
                break
            if _INSTALL_DONE.search(after[:2_000]):
                outcome = True
                break
        if not outcome:
            continue
        for name, version in pins.items():
            g.distributions.setdefault(name, f"{version}+cpu")
        g.torch_version = g.distributions["torch"]
        g.torch_cuda = g.torch_cuda if g.torch_cuda is not None else ""
        g.notes.append(f"torch {g.torch_version}: installed from PyTorch's CPU index (line {i + 1})")
        if len(g.cues) < 64:
            g.cues.append({"cue": CPU_INDEX_INSTALL, "means": pins["torch"], "line": line.strip()[:300]})
        if "torch" not in g.frameworks:
            g.frameworks.append("torch")


# collect_env's GPU rows where no collect_env block took them: vLLM's own collect_env aligns its keys
# ("GPU models and configuration :") under "=====" section titles, and the rows follow on lines of their own
# ("GPU 0: NVIDIA GeForce RTX 3090").
_GPU_ROWS = re.compile(r"^[ \t]*GPU models and configuration[ \t]*:[ \t]*\n((?:[ \t]*GPU \d{1,2}:[^\n]{1,200}\n?){1,16})", re.M)


def _gpu_rows(g: Gathered, text: str) -> None:
    m = _GPU_ROWS.search(text[:1_000_000])
    if m is None:
        return
    for row in m.group(1).splitlines():
        if gpu := re.match(r"^[ \t]*GPU (\d{1,2}):[ \t]*(.+?)(?:[ \t]*\(UUID:.*)?[ \t]*$", row):
            g.gpus.append({"index": int(gpu.group(1)), "name": gpu.group(2)})


# nvcc's release in the forms reporters write it outside `nvcc --version`'s block: its last line's build tag on its own
# ("Build cuda_11.8.r11.8/compiler.31833905_0", "nvcc==cuda_11.8.r11.8/..."; NVIDIA's nvcc prints "Build
# cuda_<major>.<minor>.r<major>.<minor>/compiler.<changelist>_0"), or nvcc named with a version ("nvcc 12.1", "nvcc
# version: 11.8", "nvcc -V shows 12.4", "nvcc (CUDA 11.7)"). The compiler's own number: the toolkit on PATH.
NVCC_SAID = re.compile(
    r"\bcuda_(?P<tag>\d{1,2}\.\d)\.r\d{1,2}\.\d/compiler\.\d+"
    r"|\bnvcc(?:[ \t]*(?:--version|-V))?[\"'`]?[ \t]*(?:==|[:=(]|[ \t])[ \t]*"
    r"(?:(?:is|shows|says|reports|gives|version|release|CUDA|the|that)[ \t:]*){0,4}v?(?P<said>\d{1,2}\.\d)(?![\d])",
    re.IGNORECASE,
)
# The driver's CUDA as the reporter quotes nvidia-smi in prose ("nvidia-smi reports that the CUDA version is 12.8",
# "nvidia-smi shows CUDA 12.4"): the number nvidia-smi heads its table with, the newest CUDA the driver runs.
SMI_CUDA_SAID = re.compile(
    r"\bnvidia-smi(?:\.exe)?[\"'`]?[ \t]+(?:reports|shows|says|gives|prints|lists)[ \t]+(?:that[ \t]+)?(?:the[ \t]+)?"
    r"CUDA(?:[ \t]+version)?[ \t]*(?:is[ \t]+|of[ \t]+|:[ \t]*)?(?P<cuda>\d{2}\.\d)(?![\d])",
    re.IGNORECASE,
)


def nvcc_said(text: str) -> re.Match[str] | None:
    """The first line stating nvcc's release outside its own block (NVCC_SAID), if any."""
    return NVCC_SAID.search(text[:1_000_000]) if "nvcc" in text.lower() or "cuda_" in text else None


# (pasted.read._text_facts: a POSIX prompt only WSL's shell shows; the host part is Windows' generated PC name, or the
# working directory a Windows drive under /mnt)
_WSL_PROMPT = re.compile(
    r"^[ \t]*(?:\([\w.-]{1,60}\)[ \t]*)?[\w.-]{1,40}@(?:(?:DESKTOP|LAPTOP)-[A-Z0-9]{7}:[^\n$#]{0,300}|[\w.-]{1,64}:/mnt/[a-z](?:/[^\n$#]{0,300})?)[$#]",
    re.MULTILINE,
)


def _text_facts(g: Gathered, text: str) -> None:
    """What the text says outside any block: the frameworks the reporter imported, WSL, a WSL kernel's name."""
    text = text[:MAX_SOURCE_CHARS]
    _cuda_lib_dirs(g, text)
    _library_files(g, text)
    _conda_dists(g, text)
    _environment_table(g, text)
    _build_script_torch(g, text)
    if g.driver_cuda is None and not g.smi_table and "nvidia-smi" in text and (smi := SMI_CUDA_SAID.search(text[:1_000_000])):
        g.driver_cuda = smi.group("cuda")
        g.notes.append(f"CUDA {smi.group('cuda')}: the driver's, as the text quotes nvidia-smi")
    if g.nvcc is None and (stated := nvcc_said(text)):
        v = stated.group("tag") or stated.group("said")
        g.nvcc = f"Cuda compilation tools, release {v}, V{v}\n"
        g.notes.append(f"nvcc {v}: the compiler's release as the text states it")
    # Blanks within the line only: `^\s*` would run from every line start across all the blank lines after it
    # (a flood of blank lines read in quadratic time).
    for imported in re.finditer(
        r"^[ \t]*(?:>>>[ \t]*|In \[\d+\]:[ \t]*)?(?:import|from)[ \t]+(torch|tensorflow|jax)\b", text, re.M
    ):
        if imported.group(1) not in g.frameworks:
            g.frameworks.append(imported.group(1))  # the reporter ran it
    # Named in prose or a command ("torch.cuda.is_available() returns false", "pip install jax[cuda12]",
    # "tf.test.is_built_with_cuda()"): the reporter uses it, though no version was shown. A form's field answered
    # "N/A" ("PyTorch Version (if applicable): N/A") names a framework the reporter does not use.
    answered = without_unanswered(text[:1_000_000])
    for name, said in (
        # A word of prose, not a path component ("/tensorflow/compiler/xla" is XLA's tree, "~/pytorch/examples").
        (
            "torch",
            r"\btorch\.(?:cuda|__version__|version)\b|(?<![/\\\w])pytorch(?![/\\\w])|\bpip3? install\b[^\n]{0,80}\btorch\b"
            # PyTorch's own suffix to a CUDA error (c10/cuda/CUDAMiscFunctions.cpp @98fb6fe1, get_cuda_check_suffix):
            # the error was torch's, though the text never names it
            r"|\bCUDA kernel errors might be asynchronously reported at some other API call",
        ),
        ("tensorflow", r"\btf\.(?:test|config|sysconfig|__version__)\b|(?<![/\\\w])tensorflow(?![/\\\w])"),
        ("jax", r"\bjax\.(?:devices|numpy|print_environment_info|random|jit)\b|\bjax\[cuda|\bjaxlib\b"),
    ):
        if name not in g.frameworks and re.search(said, answered, re.IGNORECASE):
            g.frameworks.append(name)
    # The torch a tool printed with its build's tag, where no listing named it: pip's own lines ("Successfully
    # installed torch-2.1.0+cpu", "Collecting torch==2.1.0+cpu", a wheel's file name "torch-2.3.0+cpu-cp310-...whl")
    # or a banner ("Ultralytics YOLOv8.1.3 Python-3.10.11 torch-2.1.0+cpu"). The last one is the installed one;
    # what pip took away ("Successfully uninstalled", "Found existing installation") is not, nor what a command
    # asked for ("pip install torch==1.8.1+cu102": a request, which may have failed).
    if g.torch_version is None and "torch" not in g.distributions and ("torch" in text or "+c" in text):
        last = None
        for line in text[:1_000_000].splitlines():
            # ...nor what an installer refused or could not find ("X.whl is not a supported wheel", "Could not find a
            # version that satisfies the requirement torch==X+cu113", uv's "you require torch==X+cu113").
            # ...nor what a model was trained with: pyannote.audio's checkpoint check ("Model was trained with torch
            # 1.10.0+cu102, yours is 2.5.1") names the torch that saved the model first; the installed one, "yours", is
            # read after this loop (_torch_yours).
            if re.search(
                r"uninstall|Found existing installation|\binstall\s|not a supported wheel|Could not find a version"
                r"|No matching distribution|you require|has no wheels|requested version|\btrained with\b",
                line[:2_000],
                re.IGNORECASE,
            ):
                continue
            if "+c" in line and (listed := _TORCH_LISTED.match(line[:200])):
                if listed.group("named") or _torch_release(listed.group("version")):
                    last = listed
            elif "torch" in line:
                for tagged in _TORCH_TAGGED.finditer(line[:2_000]):
                    last = tagged
            elif (
                "+cpu" in line and (quoted := _TORCH_QUOTED_CPU.search(line[:2_000])) and _torch_release(quoted.group("version"))
            ):
                last = quoted
        if last is not None:
            tag = last.group("tag").lower()
            g.torch_version = f"{last.group('version')}+{tag}"
            g.distributions["torch"] = g.torch_version
            if g.torch_cuda is None:
                g.torch_cuda = "" if tag == "cpu" else f"{tag[2:-1]}.{tag[-1]}"
            if "torch" not in g.frameworks:
                g.frameworks.append("torch")
    if g.torch_version is None and "torch" not in g.distributions and "trained with torch" in text:
        _torch_yours(g, text)
    if not g.gpus and "GPU models and configuration" in text:
        _gpu_rows(g, text)
    if g.torch_version is None and "torch" not in g.distributions and "/whl/cpu" in text:
        _cpu_index_install(g, text)
    # Each pattern only where its words are (substring tests are far cheaper than a pattern over 16 MiB).
    lowered = text.lower()
    if "to see if we are running under windows subsystem" in lowered or "assuming a non-wsl environment" in lowered:
        # libnvidia-container's INFO lines name WSL on every host it starts on (src/nvc.c: before dxcore is tried, and
        # where it is not WSL): their words are no WSL said
        text = re.sub(
            r"[^\n]*(?:to see if we are running under Windows Subsystem for Linux \(WSL\)"
            r"|continuing assuming a non-WSL environment)[^\n]*",
            "",
            text,
        )
        lowered = text.lower()
    if "search" in lowered and "wsl" in lowered:
        text = without_ollama_search(text)  # (ollama's search patterns name WSL's folder on every Linux host)
        lowered = text.lower()
    if "wsl" in lowered:
        # An issue template's WSL field left unanswered (a list item "- WSL version (if applicable):" and nothing after
        # it) says nothing of the machine: its label is no WSL said (a blind set 16 report on plain Ubuntu was planned
        # for WSL). A heading that ends in a colon ("#### Ubuntu app WSL:") introduces what follows: it stays read.
        text = re.sub(r"(?m)^[ \t>]*[-*][ \t]+[^:\n]{0,80}\bWSL\b[^:\n]{0,80}:[ \t*]*$", "", text)
    if ("wsl" in lowered or "subsystem" in lowered) and re.search(
        # WSL as a word of its own: not a hyphenated identifier's part (a compose file's "vaapi-wsl" transcoding choice)
        # nor an ASCII identifier's ("isWSL"); Chinese and Japanese text sets it between its own letters with no space
        # ("在WSL2虚拟机下", "WSL2Ubuntu报警告"), which Python's \w counts as word characters: only ASCII ones bound it,
        # and its version digit ends it.
        r"(?<![A-Za-z0-9_-])WSL(?:\s*[12](?!\d|\.\d)|(?![A-Za-z0-9_]))(?!-\w)|\bSubsystem (?:for Linux|on Windows)\b",
        text,
        re.IGNORECASE,
    ):
        g.wsl_said = True
        # "I'm using wsl 1", "WSL1": the distribution runs under WSL 1, which has no GPU at all (a WSL 2 kernel or
        # a "WSL 2" said beside it wins; "wsl 1.2.5", the WSL package's version, is not a WSL version).
        if re.search(r"\bWSL\s?1\b(?![.\d])", text, re.IGNORECASE) and not re.search(r"\bWSL\s?2\b", text, re.IGNORECASE):
            g.wsl1_said = True
        g.wsl2_said = g.wsl2_said or bool(re.search(r"\bWSL\s?2\b", text, re.IGNORECASE))
    # WSL mounts the Windows drives under /mnt/<letter>: a Linux path into a Windows profile or system folder.
    if "/mnt/" in text and re.search(r"(?<![\w/])/mnt/[a-z]/(?:Users|Windows|Program Files)/", text):
        g.wsl_said = True
    # A bash prompt ("user@host:cwd$", Debian's and Ubuntu's PS1) that only WSL's shell shows: a host named as Windows
    # setup names a PC it was not told a name for ("DESKTOP-" or "LAPTOP-" and seven letters or digits; Microsoft's
    # Unattend reference, Microsoft-Windows-Shell-Setup ComputerName: a random name where none is given), which WSL
    # gives its distribution (learn.microsoft.com/windows/wsl/wsl-config, [network] hostname: "Windows hostname" by
    # default; microsoft/WSL#4305: WSL's init calls sethostname with it), or a working directory in a Windows drive
    # WSL mounts (/mnt/<letter>, [automount] root). The reporter's own commands ran there, in Linux: stronger than a
    # sentence about Windows beside it ("on Windows (not WSL) it works", pasted.cues._NATIVE_WINDOWS).
    if ("DESKTOP-" in text or "LAPTOP-" in text or "/mnt/" in text) and (m := _WSL_PROMPT.search(text)):
        g.wsl_said = True
        g.wsl_prompt = m.group(0).strip()[:300]
    # A WSL kernel names itself: 4.4.0-19041-Microsoft is WSL 1, 5.15.90.1-microsoft-standard-WSL2 is WSL 2.
    if "icrosoft" in text and (
        m := re.search(r"\b(\d+\.\d+\.\d+(?:\.\d+)?-(?:\d+-Microsoft|microsoft-standard(?:-WSL2)?))\b", text)
    ):
        g.release = g.release or m.group(1)
        g.system = g.system if g.system not in (None, "Windows") else "Linux"
        g.wsl = g.wsl or "standard" in m.group(1)


# --- per kind -------------------------------------------------------------------------------------


def _read_block(g: Gathered, block: Block) -> str:
    reader = _READERS.get(block.kind)
    if reader is None:
        return "error texts"
    try:
        return reader(g, block)
    except ParseError as exc:
        return f"unreadable: {exc.message}"


def _nvidia_smi(g: Gathered, block: Block) -> str:
    from gpudoctor.parsers.nvidia_smi_text import parse_nvidia_smi_table

    text = "\n".join(line.strip() for line in block.lines)
    table = parse_nvidia_smi_table(text)
    g.smi_table_line = block.end
    if g.smi_table is None:
        g.smi_table = text + "\n"
    g.driver_version = g.driver_version or table.driver_version
    g.driver_cuda = g.driver_cuda or table.cuda_version
    if any((gpu.driver_model or "").upper() in ("WDDM", "TCC", "MCDM") for gpu in table.gpus):
        g.system = g.system or "Windows"  # the Driver-Model column holds a value only on Windows
        for gpu in table.gpus:
            if gpu.driver_model:
                g.windows_side_models.setdefault(gpu.index, gpu.driver_model.upper())
    return f"driver {table.driver_version}, CUDA {table.cuda_version}, {len(table.gpus)} GPU(s)"


_SMIQ_FIELD = re.compile(r"^\s*(?P<key>[^:]+?)\s+:\s*(?P<value>.*?)\s*$")


def _nvidia_smi_q(g: Gathered, block: Block) -> str:
    gpus: list[dict[str, Any]] = []
    for line in block.lines:
        m = _SMIQ_FIELD.match(line)
        if not m:
            bus = re.match(r"^\s*GPU ([0-9A-Fa-f:.]+)\s*$", line)
            if bus:
                gpus.append({"index": len(gpus), "pci_bus_id": bus.group(1)})
            continue
        key, value = m.group("key").strip(), m.group("value").strip()
        if key == "Driver Version" and re.match(r"\d", value):
            g.driver_version = g.driver_version or value
        elif key == "CUDA Version" and re.match(r"\d", value):
            g.driver_cuda = g.driver_cuda or value
        elif key == "Product Name" and gpus and "name" not in gpus[-1]:
            gpus[-1]["name"] = value
        elif key == "Product Name" and not gpus:
            gpus.append({"index": 0, "name": value})
    if not g.gpus:
        g.gpus = [x for x in gpus if x.get("name")]
    return f"driver {g.driver_version}, CUDA {g.driver_cuda}, {len(gpus)} GPU(s)"


def _nvidia_smi_l(g: Gathered, block: Block) -> str:
    from gpudoctor.pasted.blocks import SMI_L_GPU

    listed = [
        {"index": int(m.group("index")), "name": m.group("name").strip(), "uuid": m.group("uuid")}
        for line in block.lines
        for m in SMI_L_GPU.finditer(line)
    ]
    g.listed_gpus = g.listed_gpus or listed
    return f"{len(listed)} GPU(s) listed"


def _nvcc(g: Gathered, block: Block) -> str:
    from gpudoctor.parsers.nvcc import parse_nvcc_version

    text = "\n".join(line.strip() for line in block.lines)
    version = parse_nvcc_version(text)
    g.nvcc = g.nvcc or text + "\n"
    return f"nvcc {version.version}"


def _proc_driver(g: Gathered, block: Block) -> str:
    from gpudoctor.parsers.proc_driver_version import parse_proc_driver_version

    text = "\n".join(line.strip() for line in block.lines)
    driver = parse_proc_driver_version(text)
    g.proc_driver = g.proc_driver or text + "\n"
    return f"kernel module {driver.version}"


def _tf_build_info(g: Gathered, block: Block) -> str:
    from gpudoctor.parsers.tf_build_info import parse_tf_build_info

    literal = block.text.strip()
    literal = literal[literal.find("OrderedDict") if "OrderedDict" in literal else literal.find("{") :]
    source = f"build_info = {literal}\n"
    info = parse_tf_build_info(source)
    g.tf_build_info = source
    if info.msvcp_dll_names or (info.cuda_version or "").startswith("64_"):
        g.system = g.system or "Windows"
    return f"TensorFlow build: CUDA {info.cuda_version_normalized}, cuDNN {info.cudnn_version_normalized}"


_VERSION = re.compile(r"\d+(?:\.\d+)+(?:[\w.+!-]*)")


def _collect_env(g: Gathered, block: Block) -> str:
    fields: dict[str, str] = {}
    gpu_lines: list[str] = []
    cudnn_paths: list[str] = []
    key = None
    for line in block.lines:
        stripped = line.strip()
        # Hand-edited outputs lose the colon of the first line ("PyTorch version 1.5.0").
        stripped = re.sub(r"^PyTorch version\s+(?=\d)", "PyTorch version: ", stripped)
        if re.match(r"^GPU \d+:", stripped):
            gpu_lines.append(stripped)
            continue
        m = re.match(r"^([A-Za-z][A-Za-z0-9 ./()_\-,'/]{0,70}):\s*(.*)$", stripped)
        if m and not stripped.startswith(("[", "/")) and not re.match(r"^[A-Za-z]:\\", stripped):
            key, value = m.group(1).strip(), m.group(2).strip()
            fields.setdefault(key, value)
            if key == "GPU models and configuration" and value:
                gpu_lines.append(value)
            if key == "cuDNN version" and (value.startswith("/") or re.match(r"^[A-Za-z]:\\", value)):
                cudnn_paths.append(value)
            continue
        if key == "cuDNN version" and (stripped.startswith("/") or re.match(r"^[A-Za-z]:\\", stripped)):
            cudnn_paths.append(stripped)
        elif re.match(r"^\[(?:pip3?|conda)\]\s+(?:Could not collect|No relevant packages)", stripped, re.IGNORECASE):
            continue
        # (collect_env of torch 0.4 listed pip's legacy format, `[pip3] torch (0.4.0)`, as pytorch/pytorch issue 9071's
        # report shows: the parentheses are no part of the version)
        elif m2 := re.match(r"^\[(pip3?|conda)\]\s+(\S+?)(?:==|\s+)\(?([^\s()]+)", stripped):
            name, version = canonical_name(m2.group(2)), m2.group(3)
            if m2.group(1) == "conda":
                g.conda = True
                build = stripped.split()[3] if len(stripped.split()) > 3 else ""
                _conda_row(g, name, version, build, stripped)
            else:
                g.distributions.setdefault(name, version)
    torch = fields.get("PyTorch version")
    if torch and _VERSION.match(torch):
        g.torch_version = torch
        g.distributions["torch"] = torch
    built = fields.get("CUDA used to build PyTorch")
    if built is not None and g.torch_version:
        if re.match(r"^\d+\.\d+", built):
            g.torch_cuda = re.match(r"^\d+\.\d+", built).group(0)  # type: ignore[union-attr]
        elif built.lower() in ("none", "could not collect") and not re.match(
            r"^\d", fields.get("ROCM used to build PyTorch", "")
        ):
            # torch.version.cuda is None: a CPU build. collect_env prints every None as "Could not collect"
            # (its pretty_str's replace_nones), and the ROCm line says whether it is a ROCm build instead.
            g.torch_cuda = ""
        elif "+cpu" in g.torch_version:
            g.torch_cuda = ""
    os_text = fields.get("OS", fields.get("Os", ""))
    if os_text:
        _os(g, os_text)
    plat = fields.get("Python platform", "")
    if plat:
        if plat.startswith("Windows"):
            g.system = g.system or "Windows"
        elif plat.startswith("Linux-"):
            g.system = g.system or "Linux"
            release = plat[len("Linux-") :].split("-x86_64")[0].split("-aarch64")[0]
            g.release = g.release or release
            if "microsoft" in plat.lower() or "wsl" in plat.lower():
                g.wsl = True
        elif plat.startswith(("macOS", "Darwin")):
            g.system = g.system or "Darwin"
    py = fields.get("Python version", "")
    if m := re.match(r"^(\d+\.\d+(?:\.\d+)?)", py):
        g.python_version = g.python_version or m.group(1)
    if "conda" in py.lower() or "anaconda" in py.lower():
        g.conda = True
    driver = fields.get("Nvidia driver version", "")
    if re.match(r"^\d+\.\d+", driver):
        g.driver_version = g.driver_version or driver.split()[0]
    for line in gpu_lines:
        m = re.match(r"^GPU (\d+):\s*(.+?)(?:\s*\(UUID:.*)?$", line)
        if m and not any(x.get("name") == m.group(2) and x.get("index") == int(m.group(1)) for x in g.gpus):
            g.gpus.append({"index": int(m.group(1)), "name": m.group(2).strip()})
        # "No CUDA" is collect_env's word for every CUDA row where torch saw no CUDA and found no GPU, driver or
        # runtime (its pretty_str, pytorch/pytorch torch/utils/collect_env.py @95511e23: `mutable_dict[field] =
        # 'No CUDA'`), "Could not collect" its word for None: neither is a GPU's name
        elif not m and line and line.lower() not in ("could not collect", "none", "no cuda"):
            g.gpus.append({"index": len(g.gpus), "name": line})
    if fields.get("GPU models and configuration", "").lower() == "no cuda" and "gpu" not in g.whole:
        # collect_env writes "No CUDA" there only when torch saw no CUDA and `nvidia-smi -L` listed nothing (its
        # get_gpu_info returns None): the machine's NVIDIA GPUs were asked for and none answered, so a CPU build
        # is no fault of its own there (a GPU the reporter names still counts: gpu_present)
        g.whole.append("gpu")
    for path in cudnn_paths:
        g.files.setdefault(path.replace("\\", "/"), {"type": "file"})
    available = fields.get("Is CUDA available", "")
    return (
        f"PyTorch {torch or '?'} (CUDA {built or '?'}), driver {driver or '?'}, "
        f"{len(gpu_lines)} GPU line(s), CUDA available: {available or '?'}"
    )


def _os(g: Gathered, text: str) -> bool:
    """Read an OS field's answer into the platform; False where it names no platform, or two."""
    low = text.lower()
    # A field that names WSL beside Windows ("Windows 11 + WSL2", "Windows 10 / WSL 2 Ubuntu"): the program runs in
    # WSL's Linux and Windows is its host, as a WSL report's Windows paths are (pasted.cues._windows); the Windows
    # side's commands (wsl.exe, the Windows driver) are the plan's to place, not the platform's.
    wsl = "wsl" in low
    linux = (
        "linux" in low
        or names_a_distribution(low)
        or bool(re.search(r"\barch\b(?![-=])", low))  # Arch as a word: not "aarch64", "search", "-arch=" of a compiler
    )
    mac = "macos" in low or "mac os" in low or "darwin" in low
    # An answer that names two platforms ("Linux, Windows": llama.cpp's form lets the reporter tick several) says
    # which systems the reporter uses, not which one failed: it decides nothing.
    if sum((("windows" in low and not wsl), linux and not wsl, mac)) > 1:
        return False
    if "windows" in low and not wsl:
        g.system = g.system or "Windows"
    elif mac:
        g.system = g.system or "Darwin"
    elif linux:
        g.system = g.system or "Linux"
        g.os_pretty = g.os_pretty or re.sub(r"\s*\((?:x86_64|aarch64|ppc64le)\)\s*$", "", text.strip())
    elif not wsl:
        return False
    if wsl:
        g.wsl = True
        g.system = g.system or "Linux"
    return True


# A line that is a Linux distribution's name and release alone, as /etc/os-release's PRETTY_NAME and lsb_release print
# them ("Ubuntu 24.04 LTS", "Ubuntu 22.04.4 LTS", "Debian GNU/Linux 13 (trixie)"): the release the host runs, where a
# form's OS field said only "Linux" (or nothing). It decides the distribution's driver and package commands.
_DISTRIBUTION_LINE = re.compile(
    r"^(?:(?:Description|PRETTY_NAME)[:=]\s*\"?)?(?P<os>Ubuntu \d{2}\.\d{2}(?:\.\d{1,2})?(?: LTS)?"
    r"|Debian GNU/Linux \d{1,2}(?: \([a-z]{3,12}\))?)\"?$"
)


def _distribution_line(g: Gathered) -> None:
    if g.system not in (None, "Linux") or (g.os_pretty or "Linux").lower() != "linux" or g.wsl:
        return  # (a named distribution, Windows or WSL said already: that statement stands)
    for _, lines in g.texts:
        for line in lines:
            if (m := _DISTRIBUTION_LINE.match(line.strip()[:80])) is not None:
                g.system = "Linux"
                g.os_pretty = m.group("os")
                return


# What says the paste ran inside a container (gpudoctor.pasted.cues): its kernel is then the host's and a package
# manager's run may be the image's, so no trace there names the distribution the plan's commands run on.
_IN_CONTAINER = frozenset({CONTAINER_SAID, IMAGE_RUN, "(container) prompt", "prompt on a 12-hex host name"})


# An OS field that names Linux and at most its kernel ("Linux", "Linux-6.5.0-41-generic-x86_64-with-glibc2.35" as
# Python's platform.platform() writes it, /proc/version's "Linux version 5.4.0-81-generic (buildd@...) ..."): no
# distribution stated.
_BARE_LINUX = re.compile(r"^linux(?:[-\s]+\d\S*|\s+version\s+\d.*)?$", re.IGNORECASE)


def _distribution_traces(g: Gathered) -> None:
    """Where the paste names no distribution, the one its traces agree on (gpudoctor.pasted.distro_traces): a kernel
    release, a package manager run, Debian's multiarch directory; each kept with its line."""
    if g.system not in (None, "Linux") or g.wsl or g.wsl_said or not _BARE_LINUX.match(g.os_pretty or "Linux"):
        return  # (a named distribution stands; "Linux-6.5.0-41-generic-x86_64", Python's platform(), names none)
    if any(c.get("cue") in _IN_CONTAINER or "pod's name" in c.get("cue", "") for c in g.cues):
        return
    if (traced := agreed(read_traces(g.texts))) is not None:
        g.traced = traced
        g.notes.append(f"the distribution from the paste's traces: {', '.join(traced.means)}")


def _conda_cpu(g: Gathered, said: str) -> None:
    entry = {"cue": TORCH_CONDA_CPU, "means": "conda's CPU build of PyTorch", "line": said[:300]}
    if entry not in g.cues and len(g.cues) < 64:
        g.cues.append(entry)


def _conda_row(g: Gathered, name: str, version: str, build: str, line: str) -> None:
    """One conda package row; `line` is the row as the text shows it (a cue cites the line that says it, not the row's
    fields joined again)."""
    if name == "pytorch":
        # The last pytorch row shown wins: a report that shows two environments shows the broken one last.
        g.distributions["torch"] = version
        g.conda_builds["torch"] = build
        if m := re.search(r"cuda(\d+)\.?(\d)", build):
            g.torch_cuda = f"{m.group(1)}.{m.group(2)}"
        elif re.search(r"(?:^|_)cpu(?:_|$)", build):
            g.torch_cuda = ""
            _conda_cpu(g, line.strip())
        g.torch_version = version
    elif name == "cpuonly":
        g.distributions.setdefault(name, version)
        _conda_cpu(g, line.strip())
        g.torch_cuda = g.torch_cuda if g.torch_cuda is not None else ""
    else:
        g.distributions.setdefault(name, version)
        if build:
            g.conda_builds[name] = build


_SITE_OF_LOCATION = re.compile(r"^@?(?P<site>\S+?[\\/](?:site|dist)-packages)(?:[\\/]\S*)?$")


def _pip_list(g: Gathered, block: Block) -> str:
    if block.lines and block.lines[0].split()[:2] == ["Package", "Version"]:
        _whole(g)
    n = 0
    for line in block.lines:
        parts = line.split()
        if len(parts) < 2 or parts[0] == "Package" or set(parts[0]) <= {"-"} or not re.match(r"v?\d", parts[1]):
            continue
        g.distributions[canonical_name(parts[0])] = parts[1].lstrip("v")
        if len(parts) >= 3 and (site := _SITE_OF_LOCATION.match(parts[2])):
            _site(g, site.group("site"))  # pip's location column, or a package's own directory after "@" (detectron2)
        n += 1
    return f"{n} distribution(s)" + _named(g)


# Names a reporter lists beside pip's pins that are no Python distribution: the interpreter, the driver, the compiler.
_NOT_DISTRIBUTIONS = frozenset({"python", "python3", "driver", "nvidia-driver", "nvcc", "cuda"})


def _pip_freeze(g: Gathered, block: Block) -> str:
    if sum(1 for line in block.lines if line.strip()) >= 10:
        _whole(g)  # ten and more pinned lines: a freeze of the environment, not a few lines quoted
    n = 0
    for line in block.lines:
        m = re.match(r"^\s*([A-Za-z0-9][\w.\-]*)(?:\[[^\]]*\])?\s*===?\s*(\S+)", line)
        if m and canonical_name(m.group(1)) in _NOT_DISTRIBUTIONS:
            # The stack's own parts listed in pip's pin form ("python==3.9.11", "Driver==515.86.01", "nvcc==cuda_11.8..."):
            # no package of the environment; the driver and nvcc are read from the line as prose (_text_facts).
            if canonical_name(m.group(1)) == "python" and re.match(r"^\d+\.\d+(?:\.\d+)?$", m.group(2)):
                g.python_version = g.python_version or m.group(2)
        elif m:
            g.distributions[canonical_name(m.group(1))] = m.group(2)
            n += 1
        elif m := re.match(r"^\s*([A-Za-z0-9][\w.\-]*)\s*@\s*(\S+)", line):
            wheel = re.search(r"/" + re.escape(m.group(1).replace("-", "_")) + r"-([\w.+!]+?)-", m.group(2), re.IGNORECASE)
            if wheel:
                g.distributions[canonical_name(m.group(1))] = wheel.group(1).replace("%2B", "+")
                n += 1
    return f"{n} distribution(s)" + _named(g)


def _pip_show(g: Gathered, block: Block) -> str:
    name = version = None
    for line in block.lines:
        if m := re.match(r"^\s*Name:\s*(\S+)", line):
            name = canonical_name(m.group(1))
        elif m := re.match(r"^\s*Version:\s*(\S+)", line):
            version = m.group(1)
        elif m := re.match(r"^\s*Location:\s*(\S.*?)\s*$", line):
            _site(g, m.group(1))
    if name and version:
        g.distributions[name] = version
    return f"{name} {version}"


def _uv_changes(g: Gathered, block: Block) -> str:
    """uv's install summary: the rows it installed or reinstalled are there now; a row it removed is gone unless the
    same summary installed it again (an upgrade prints "- torch==2.0.0" and "+ torch==2.1.0")."""
    from gpudoctor.pasted.blocks import _UV_ROW

    added: dict[str, str] = {}
    removed: set[str] = set()
    for line in block.lines:
        if (m := _UV_ROW.match(line)) is None:
            continue
        name = canonical_name(m.group("name"))
        if line.lstrip()[0] == "-":
            removed.add(name)
        elif m.group("version"):
            added[name] = m.group("version")
    for name in removed - added.keys():
        g.distributions.pop(name, None)
    g.distributions.update(added)
    return f"{len(added)} installed, {len(removed - added.keys())} removed" + _named(g)


def _conda_list(g: Gathered, block: Block) -> str:
    if any(re.match(r"^\s*#\s*Name\s+Version", line) for line in block.lines[:4]):
        _whole(g)
    n = 0
    for line in block.lines:
        if m := re.match(r"^\s*#\s*packages in environment at\s+(.+?):?\s*$", line):
            g.prefix = g.prefix or m.group(1).rstrip(":")
            g.conda = True
            continue
        parts = line.split()
        if len(parts) < 3 or parts[0].startswith("#") or not re.match(r"\d", parts[1]):
            continue
        name = canonical_name(parts[0])
        channel = parts[3] if len(parts) > 3 else ""
        if channel == "pypi" or parts[2].startswith("pypi"):
            g.distributions[name] = parts[1]  # installed with pip inside the conda environment
        else:
            g.conda = True
            _conda_row(g, name, parts[1], parts[2], line)
        n += 1
    return f"{n} package(s)" + _named(g)


def _whole(g: Gathered) -> None:
    """A complete package list was shown: a distribution it lacks is not installed."""
    if "distributions" not in g.whole:
        g.whole.append("distributions")


def _jax_env(g: Gathered, block: Block) -> str:
    devices = ""
    for line in block.lines:
        if m := re.match(r"^\s*(jax|jaxlib|numpy):\s+(\S+)", line):
            g.distributions[m.group(1)] = m.group(2)
        elif m := re.match(r"^\s*python:\s+(\d+\.\d+(?:\.\d+)?)", line):
            g.python_version = g.python_version or m.group(1)
        elif m := re.match(r"^\s*jax\.devices \((.*?)\):\s*(.*)$", line):
            devices = m.group(2)
        elif m := re.match(r"^\s*platform:\s*uname_result\(system='(\w+)'.*?release='([^']*)'", line):
            g.system = g.system or m.group(1)
            g.release = g.release or m.group(2)
            if "microsoft" in m.group(2).lower():
                g.wsl = True
    return f"jax {g.distributions.get('jax')}, jaxlib {g.distributions.get('jaxlib')}, devices {devices[:80] or '?'}"


_LS_ROW = re.compile(
    r"^\s*(?P<mode>[-ldcbps])[rwxsStT-]{9}[.+@]?\s+\d+\s+\S+\s+\S+\s+[\d,]+\s+\S+\s+\S+\s+\S+\s+(?P<name>.+?)\s*$"
)


def _ls(g: Gathered, block: Block) -> str:
    heading = None
    n = 0
    for line in block.lines:
        if m := re.match(r"^\s*(/\S*?):\s*$", line):
            heading = m.group(1)
            continue
        m = _LS_ROW.match(line)
        if not m:
            continue
        name, target = m.group("name"), None
        if " -> " in name:
            name, target = name.split(" -> ", 1)
        if not name.startswith("/"):
            if heading is None:
                continue
            name = heading.rstrip("/") + "/" + name
        name = name.rstrip("/")
        if m.group("mode") == "l" and target:
            g.files[name] = {"link": target.strip()}
        elif m.group("mode") == "d":
            g.files.setdefault(name + "/.", None)  # marks a directory; dropped when the snapshot is written
        else:
            g.files.setdefault(name, {"type": "file"})
        n += 1
    return f"{n} path(s)"


# A field that names torch itself ("PyTorch version", "torch", Lightning's "pyTorch_version"), not a package named after
# it ("pytorch-lightning: 1.7.7", "torchvision: 0.13.1", "torchmetrics"), whose version is its own.
_TORCH_KEY = re.compile(r"(?:py)?torch(?:_version\b|(?![\w-]))")


def _issue_form(g: Gathered, block: Block) -> str:
    from gpudoctor.pasted.blocks import form_field, heading_pairs

    said = []
    pairs = [kv for line in block.lines if (kv := form_field(line))]
    pairs += heading_pairs(block.lines)
    for key, value in pairs:
        key, value = key.lower().strip(), value.strip().strip("`*")
        versions = _VERSION.findall(value)
        if key.startswith(("os", "operating system", "platform")):
            if _os(g, value):
                said.append("OS")
        elif (
            key.startswith("tensorflow") and versions and not any(d in g.distributions for d in ("tensorflow", "tensorflow-gpu"))
        ):
            g.distributions["tensorflow"] = versions[-1]
            said.append("TensorFlow")
        elif _TORCH_KEY.match(key) and versions and "torch" not in g.distributions:
            g.distributions["torch"] = g.form_torch = versions[-1]
            said.append("PyTorch")
        elif key.startswith("python") and not re.search(r"\d", key) and versions:
            # (a "key" holding digits is a sentence split at its first colon, "Python 3.9.7, A30 GPU ... Cuda version":
            # the value after it is another tool's version, not Python's)
            g.python_version = g.python_version or versions[0]
            said.append("Python")
        elif re.fullmatch(r"cuda(?:/cudnn)?(?: version)?", key) and versions and re.match(r"^\d{1,2}\.\d$", versions[0]):
            # "CUDA Version: 11.3": which CUDA (the toolkit's, or the driver's as nvidia-smi heads it) is not said, so it
            # is no fact of either; a check judges it only where both readings lead to one cause. TensorFlow's issue
            # template asks "CUDA/cuDNN version" under its own heading ("CUDA 12.4", "11.8/8.4.1.50"): the first is CUDA's.
            line = next(
                (
                    x
                    for x in block.lines
                    if ((kv := form_field(x)) and kv[1].strip().strip("`*") == value) or x.strip().strip("`*") == value
                ),
                "",
            )
            if line:
                g.errors.append(ErrorEvidence("cuda-version-said", line.strip()[:300], (("cuda", versions[0]),)))
                said.append("CUDA")
                if "cudnn" not in key and _no_toolkit_release(versions[0]):
                    # No toolkit was ever released as X.Y (12.7): the number is nvidia-smi's header, the driver's CUDA.
                    # Not under "CUDA/cuDNN version", whose one number may be cuDNN's (8.6: no CUDA 8.6, a cuDNN 8.6;
                    # tests/blind/pasted/cases/024-tensorflow-63948, whose nvidia-smi table says CUDA 12.4).
                    g.driver_cuda = g.driver_cuda or versions[0]
                    g.notes.append(f"CUDA {versions[0]} is no toolkit release: the driver's CUDA version, as nvidia-smi heads it")
        elif key.startswith(("tensorrt", "cudnn")) and versions:
            # "TensorRT Version: 8.2.0.6", "CUDNN Version: 7.6": stated, judged against the TensorRT release's support
            # matrix where both are said (gpudoctor.checks.libraries)
            kind, field = ("tensorrt-version-said", "version") if key.startswith("tensorrt") else ("cudnn-version-said", "cudnn")
            line = next((x for x in block.lines if (kv := form_field(x)) and kv[0].lower().strip() == key), "")
            if line:
                g.errors.append(ErrorEvidence(kind, line.strip()[:300], ((field, versions[0]),)))
                said.append("TensorRT" if field == "version" else "cuDNN")
        elif key == "gpu models and configuration" and value.lower() == "no cuda" and "gpu" not in g.whole:
            # collect_env's row, quoted or retyped outside its block: nvidia-smi listed no GPU (as in _collect_env)
            g.whole.append("gpu")
            said.append("no GPU")
        elif key.startswith(("nvidia driver", "driver")) and versions and re.match(r"^\d{3}\.\d+", versions[0]):
            g.driver_version = g.driver_version or versions[0]
            said.append("driver")
        elif key.startswith(("nvidia driver", "driver")) and (branch := re.fullmatch(r"[rR]?(\d{3})", value.strip())):
            # "NVIDIA Driver Version: 550": the branch (and with it the newest CUDA it runs), not a version to compare
            line = next((x for x in block.lines if (kv := form_field(x)) and kv[0].lower().strip() == key), "")
            if line:
                g.errors.append(ErrorEvidence("driver-branch-said", line.strip()[:300], (("branch", branch.group(1)),)))
                said.append("driver branch")
    return "stated by the reporter: " + (", ".join(said) or "nothing gpudoctor reads")


def _no_toolkit_release(cuda: str) -> bool:
    """Whether CUDA X.Y lies within the toolkits compat_matrix/cuda_driver.toml knows yet is none of them (12.7)."""
    from gpudoctor.matrix import load_matrix

    known = load_matrix().cuda_versions()
    if not known or cuda in known:
        return False
    return version_key(known[0]) < version_key(cuda) < version_key(known[-1]) and any(
        k.split(".")[0] == cuda.split(".")[0] for k in known
    )


# The NVIDIA module's own word that another driver owns its GPUs: nvidia_init_module counts the NVIDIA devices on the bus
# and, where its PCI probe ran for fewer, prints "The NVIDIA probe routine was not called for %d device(s)" and names the
# drivers that take them first, nouveau before the framebuffers rivafb, nvidiafb and rivatv (NVIDIA/open-gpu-kernel-modules
# kernel-open/nvidia/nv.c @30e15d79; the proprietary module's nv.c prints the same). Of those only nouveau is built and
# loaded by every distribution's kernel, so it is the driver that holds them; a GPU given to a VM (vfio-pci) or held by
# driver_override also stops the probe, and the text then says vfio. Threads: mattshma/bigdata#133 (plans23 2368, three
# V100s, nothing loaded after a reboot), MrMEEE/ironhide#41 (tests/pasted/cases/ironhide-41-*, nouveau loaded, the tool's
# "rmmod nouveau" advice).
_PROBE_NOT_CALLED = re.compile(r"NVRM: The NVIDIA probe routine was not called for \d+ device")
_PASSTHROUGH = re.compile(r"\bvfio(?:-pci)?\b|\bdriver_override\b", re.IGNORECASE)


def _dmesg(g: Gathered, block: Block) -> str:
    if any(re.search(r"\bnouveau [0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.\d: (?:NVIDIA|DRM:|fb:)", line) for line in block.lines):
        if "nouveau" not in g.modules:
            g.modules.append("nouveau")  # nouveau bound the GPU: it is the loaded driver
        return "nouveau drives the GPU"
    if any(_PROBE_NOT_CALLED.search(line) for line in block.lines):
        return "another driver owns the GPUs (the NVIDIA module's probe was not called)"  # which: _probe_not_called
    return "kernel log lines (error texts)"


def _probe_not_called(g: Gathered) -> None:
    """Once every text is read: the NVIDIA module's probe not called, and no GPU passed through, makes nouveau loaded."""
    lines = [ln[:2_000] for _, text in g.texts for ln in text]
    if "nouveau" in g.modules or not any(_PROBE_NOT_CALLED.search(ln) for ln in lines):
        return
    if not any(_PASSTHROUGH.search(ln) for ln in lines):
        g.modules.append("nouveau")  # the NVIDIA module says another driver took its GPUs: nouveau, of its list


def _lshw(g: Gathered, block: Block) -> str:
    """lshw -C display: an NVIDIA device whose configuration says driver=nouveau is held by nouveau, which is then the
    loaded driver, as nouveau binding the GPU in the kernel log says (_dmesg)."""
    nvidia = 0
    held = False
    vendor = ""
    for line in block.lines:
        text = line.strip()
        if text.startswith(("*-", "description:")):
            vendor = ""
        elif text.startswith("vendor:"):
            vendor = text
        elif text.startswith("configuration:") and "nvidia" in vendor.lower():  # older lshw: "nVidia Corporation"
            nvidia += 1
            held = held or re.search(r"\bdriver=nouveau\b", text) is not None
    if held and "nouveau" not in g.modules:
        g.modules.append("nouveau")
    return f"{nvidia} NVIDIA display device(s)" + (", nouveau drives the GPU" if held else "")


def _lspci(g: Gathered, block: Block) -> str:
    from gpudoctor.parsers.lspci import nvidia_gpus, parse_lspci

    text = "\n".join(line.strip() if not line.startswith(("\t", "        ")) else "\t" + line.strip() for line in block.lines)
    gpus = nvidia_gpus(parse_lspci(text))
    if g.lspci is None:
        g.lspci = text + "\n"
    return f"{len(gpus)} NVIDIA GPU(s) on the PCI bus"


def _named(g: Gathered) -> str:
    wanted = [n for n in ("torch", "tensorflow", "jax", "jaxlib") if n in g.distributions]
    wheels = [n for n in g.distributions if n.startswith("nvidia-")]
    return (": " + ", ".join(f"{n} {g.distributions[n]}" for n in wanted) if wanted else "") + (
        f", {len(wheels)} nvidia-* wheel(s)" if wheels else ""
    )


def _env_rows(g: Gathered, block: Block) -> str:
    before = dict(g.distributions)
    _collect_env(g, block)  # the rows are collect_env's own; its other fields are simply absent
    added = [n for n in g.distributions if n not in before]
    return f"{len(added)} distribution(s)" + _named(g)


def _ldconfig(g: Gathered, block: Block) -> str:
    from gpudoctor.parsers.ldconfig import parse_ldconfig

    cache = parse_ldconfig(block.text)
    # Each row shows a library file the loader's cache holds. Only a whole cache (its "N libs found" header)
    # says what is not there; rows filtered through grep say only what is.
    for paths in cache.values():
        for path in paths[:8]:
            g.files.setdefault(path, {"type": "file"})
    if any(re.match(r"^\s*\d+ libs found in cache", line) for line in block.lines[:1]) and g.ldconfig is None:
        g.ldconfig = block.text + "\n"
    return f"{sum(len(p) for p in cache.values())} cached librar(ies)"


# The expressions whose printed answer is a fact, and where it goes.
_REPL_ANSWER = re.compile(
    r"^\s*(?:>>>\s*|In \[\d+\]:\s*)?(?:print\()?(?P<expr>(?:torch|tf|tensorflow|jax|jaxlib)\.(?:__version__|version\.cuda))\)?"
    r"\s*(?:#\s*(?P<comment>\S.*))?$"
)
_ANSWER_VALUE = re.compile(r"^\s*(?:Out\[\d+\]:\s*)?['\"]?(?P<value>\d+(?:\.\d+)+[\w.+]*|None)['\"]?\s*$")


def _repl(g: Gathered, block: Block) -> str:
    said = []
    lines = block.lines
    for n, line in enumerate(lines):
        m = _REPL_ANSWER.match(line)
        if not m:
            continue
        answer = m.group("comment") or (lines[n + 1] if n + 1 < len(lines) else "")
        v = _ANSWER_VALUE.match(answer)
        if not v:
            continue
        expr, value = m.group("expr"), v.group("value")
        module = expr.split(".")[0]
        if expr.endswith("version.cuda") and module == "torch":
            g.torch_cuda = "" if value == "None" else ".".join(value.split(".")[:2])
        elif value != "None":
            name = {"tf": "tensorflow", "torch": "torch"}.get(module, module)
            if name == "torch" or name not in g.distributions:
                g.distributions[name] = value
            if name == "torch":
                g.torch_version = g.torch_version or value
        said.append(f"{expr} = {value}")
    return "REPL answers: " + (", ".join(said) or "error texts only")


def _prompt(g: Gathered, block: Block) -> str:
    return "command line (cues)"


_READERS = {
    "nvidia_smi": _nvidia_smi,
    "nvidia_smi_q": _nvidia_smi_q,
    "nvidia_smi_l": _nvidia_smi_l,
    "nvcc": _nvcc,
    "proc_driver": _proc_driver,
    "tf_build_info": _tf_build_info,
    "collect_env": _collect_env,
    "pip_list": _pip_list,
    "pip_freeze": _pip_freeze,
    "pip_show": _pip_show,
    "uv_changes": _uv_changes,
    "conda_list": _conda_list,
    "jax_env": _jax_env,
    "ls_cuda": _ls,
    "issue_form": _issue_form,
    "dmesg": _dmesg,
    "lspci": _lspci,
    "lshw": _lshw,
    "env_rows": _env_rows,
    "ldconfig": _ldconfig,
    "repl": _repl,
    "prompt": _prompt,
}


# --- what paths and error texts say ---------------------------------------------------------------------

# A path ending in site-packages (or dist-packages) and the package after it: `/…/site-packages/torch`,
# `C:\…\site-packages\torch`. Found from the literal tail backwards, in linear time: a pattern that tried
# every `/` as the start of a path would read each of up to 300 characters after it (a 1 MB line of `/a`
# took 42 s). A separator may be doubled: Python's repr of a Windows path (an OSError's message, a JSON traceback
# from Jupyter) writes `c:\\Users\\...\\site-packages\\torch`.
_SITE_TAIL = re.compile(r"[\\/](?:site|dist)-packages(?:\\\\|[\\/])(?P<pkg>[A-Za-z_]\w*)")
_NOT_PATH = frozenset(" \t\n\r\x0b\x0c\"'<>|:*?")
_SITE_MAX = 300  # characters between the path's first separator and `/site-packages`


# A line that is a path's head alone, up to a slash: the rest of the path wrapped onto the next line.
_WRAPPED_HEAD = re.compile(r"(?:/|~/)[^\s:`'\"<>|*?]{1,250}/")


def _site_paths(text: str):
    """(site-packages path, package) for each `PATH/site-packages/PKG` in `text`, in order (as the pattern
    `(/|X:[\\/])[^blanks, quotes, <>|:*?]{0,300}?[\\/]site-packages[\\/](PKG)` would find them)."""
    floor = pos = 0
    while m := _SITE_TAIL.search(text, pos):
        end = m.start()
        lo = end
        while lo > floor and end - lo <= _SITE_MAX and text[lo - 1] not in _NOT_PATH:
            lo -= 1
        while lo < end and text[lo] in "`([{":
            lo += 1  # markdown's backtick or a bracket opens a whole path: it is no part of the path's head
        start = None
        drive = lo >= 2 and lo - 2 >= floor and text[lo - 1] == ":" and text[lo - 2].isascii() and text[lo - 2].isalpha()
        # a drive is one letter: the "s:" of a URL's "https://" (a link VS Code's WSL remote prints beside each frame,
        # tests/blind/plans14 1411) is no drive, and its path no Windows path
        drive = drive and not (lo >= 3 and (text[lo - 3].isalnum() or text[lo - 3] in "+-.")) and text[lo : lo + 2] != "//"
        if drive and lo < end and text[lo] in "\\/" and end - (lo + 1) <= _SITE_MAX:
            start = lo - 2  # a drive: C:\ or C:/
        if start is None:
            slash = text.find("/", lo, end)
            if slash == -1 or end - (slash + 1) > _SITE_MAX:
                pos = end + 1  # no path before this one: a later tail may still make one with it
                continue
            if text[lo:slash] in (".", "..") or text[lo:slash].endswith(("=.", "=..")):
                # A relative path (../../.local/share/...: pytorch_lightning's upgrade hint) names a directory under
                # an unknown working directory: read from its first slash it would be another path (/../.local).
                pos = end + 1
                continue
            start = slash
            wrapped = start > lo and lo - 1 > floor and text[lo - 1] == "\n"
            nl = text.rfind("\n", max(floor, lo - 300), lo - 1) if wrapped else -1
            # (the whole line above, from its own start: the text's first line, or after a newline within reach)
            head = text[nl + 1 : lo - 1].strip() if wrapped and (nl != -1 or max(floor, lo - 300) == 0) else ""
            if wrapped and _WRAPPED_HEAD.fullmatch(head):
                # a long path wrapped after a slash (an editor's or a terminal's line width): its head is the line above
                floor = pos = m.end()
                yield head + text[lo : m.start() + len(m.group(0)) - len(m.group("pkg")) - 1], m.group("pkg")
                continue
            if start > lo and text[start - 1] == "~" and start - 1 == lo:
                start -= 1  # a home-relative path (~/.conda/envs/x): without its ~ it would name another directory
            elif start > lo:
                # a relative or elided path (conda/envs/x/..., .../test_env/...): from its first slash on it would
                # name another directory, and an interpreter made of it one that does not exist
                floor = pos = m.end()
                continue
        floor = pos = m.end()
        yield text[start : m.start() + len(m.group(0)) - len(m.group("pkg")) - 1], m.group("pkg")


def _site(g: Gathered, path: str) -> None:
    path = path.replace("\\\\", "\\").replace("\\", "/").rstrip("/")
    if path not in g.site_packages and len(g.site_packages) < 8:
        g.site_packages.append(path)
    if re.match(r"^[A-Za-z]:/", path):
        g.system = g.system or "Windows"
    if m := re.search(r"/python(\d+\.\d+)/", path):
        g.python_version = g.python_version or m.group(1)
    # python.org's folders: Python311, and Python311-32 / Python311-arm64 for its 32-bit and ARM64 builds
    if m := re.search(r"[\\/](?:Python|python)(\d)(\d+)(?:-32|-arm64)?[\\/]", path):
        g.python_version = g.python_version or f"{m.group(1)}.{m.group(2)}"
    if m := re.match(r"^(.*?/(?:envs/[^/]+|anaconda3|miniconda3|miniforge3|mambaforge))/", path + "/"):
        g.conda = True
        g.prefix = g.prefix or m.group(1)


# Windows' layouts of an environment's site-packages (<prefix>\Lib\site-packages): python.exe sits in the prefix of
# CPython's installer (Python310), a version's own directory (pyenv-win's 3.10.5), the embeddable/portable builds
# (python_embeded), conda's base and its envs\NAME; any other prefix is a venv, its python.exe under Scripts.
_WIN_SITE = re.compile(r"^(?P<prefix>[A-Za-z]:/.+?)/Lib/site-packages$", re.IGNORECASE)
_PREFIX_HOLDS_PYTHON = re.compile(
    r"python\d*|python_embedd?ed|\d+(?:\.\d+)+|(?:ana|mini)conda\d?|miniforge\d?|mambaforge", re.IGNORECASE
)

_CONDA_DIR = re.compile(r"conda|miniforge|mambaforge", re.IGNORECASE)
# A distribution's own name inside the prefix's ("Py_Anaconda", Visual Studio's shared "Anaconda3_64" under
# Microsoft Visual Studio\\Shared): an installation of Anaconda or Miniconda given another folder name is still conda's
# base, its python.exe at the root (plans21/2172's D:\\Py_Anaconda, conda's base with lib\\site-packages under it).
_CONDA_NAMED = re.compile(r"(?:ana|mini)conda|miniforge|mambaforge", re.IGNORECASE)


def _installer_env(parts: list[str]) -> bool:
    """Whether a prefix (its folders) is a one-click installer's environment, <app>\\installer_files\\env: a conda
    prefix its script creates with the Miniconda it unpacks beside it (installer_files\\conda), python.exe at its root,
    none in its Scripts folder (oobabooga/text-generation-webui start_windows.bat @085ac6be: INSTALL_ENV_DIR=
    %cd%\\installer_files\\env, `_conda.exe create --prefix "%INSTALL_ENV_DIR%"`, `if not exist "%INSTALL_ENV_DIR%\\python.exe"`)."""
    return [p.lower() for p in parts[-2:]] == ["installer_files", "env"]


def _interpreter_of_site(g: Gathered) -> None:
    """On Windows, with no python.exe shown run, the interpreter of the environment a traceback shows the packages
    in: its python.exe by the layout of the site-packages' prefix, cited by the first line naming that path."""
    if g.system != "Windows" or g.interpreter is not None or not g.site_packages:
        return
    m = _WIN_SITE.match(g.site_packages[0])
    if m is None:
        return
    prefix = m.group("prefix")
    parts = prefix.split("/")
    # An environment in a folder a conda installation names ("python_miniconda_env\\ComfyUI", "miniconda3\\envs\\x")
    # is conda's: its python.exe at the environment's root, as in conda's own envs folder.
    in_conda = any(_CONDA_DIR.search(part) for part in parts[:-1])
    in_conda = in_conda or _installer_env(parts) or _CONDA_NAMED.search(parts[-1]) is not None
    base = g.conda or in_conda or _PREFIX_HOLDS_PYTHON.fullmatch(parts[-1]) is not None or parts[-2:-1] == ["envs"]
    interpreter = prefix.replace("/", "\\") + ("\\python.exe" if base else "\\Scripts\\python.exe")
    spelled = (g.site_packages[0], g.site_packages[0].replace("/", "\\"), g.site_packages[0].replace("/", "\\\\"))
    line = next(
        (ln for _, lines in g.texts for ln in lines if any(p.lower() in ln.lower() for p in spelled)),
        None,
    )
    if line is None:
        return  # a fact cites its line: without one, the platform's usual name stays
    g.interpreter = interpreter
    entry = {"cue": "a Windows site-packages path", "means": "the interpreter the plan must use", "line": line.strip()[:300]}
    if len(g.cues) < 64:
        g.cues.append(entry)


# A console script's launcher on Windows (<prefix>\Scripts\NAME.exe): the installer's launcher runs the __main__.py zipped
# into it with the environment's interpreter, so a traceback's frame in it names the environment; the frame of runpy.py
# (which runs that __main__) says whose standard library ran it: one under <prefix>\lib is the environment's own (a
# conda environment, a CPython installation: python.exe in the prefix), one elsewhere a base Python's (a venv: its
# python.exe under Scripts; docs.python.org/3/library/venv.html, "How venvs work").
_WIN_LAUNCHER_FRAME = re.compile(
    r'File "(?P<prefix>[A-Za-z]:\\(?:[^\\"<>|*?\n]{1,120}\\){0,20}?[^\\"<>|*?\n]{1,120})\\Scripts\\[\w.-]{1,60}\.exe\\__main__\.py"',
    re.IGNORECASE,
)
_WIN_RUNPY_FRAME = re.compile(r'File "(?P<prefix>[A-Za-z]:\\[^"\n]{1,300}?)\\lib\\runpy\.py"', re.IGNORECASE)


def _interpreter_of_launcher_frame(g: Gathered) -> None:
    """On Windows, with no interpreter read yet: the python.exe of the environment whose console-script launcher a
    traceback starts in (_WIN_LAUNCHER_FRAME), by where runpy.py ran from, else by the prefix's layout (_interpreter_of_site's
    rule)."""
    if g.system != "Windows" or g.interpreter is not None:
        return
    lines = [ln.replace("\\\\", "\\") for _, text in g.texts for ln in text if "__main__" in ln or "runpy" in ln]
    frame = next(((m, ln) for ln in lines if (m := _WIN_LAUNCHER_FRAME.search(ln))), None)
    if frame is None:
        return
    prefix = frame[0].group("prefix")
    runpy = next((m.group("prefix") for ln in lines if (m := _WIN_RUNPY_FRAME.search(ln))), None)
    if runpy is not None:
        base = runpy.lower() == prefix.lower()
    else:
        parts = prefix.split("\\")
        base = (
            any(_CONDA_DIR.search(p) for p in parts[:-1])
            or _installer_env(parts)
            or _PREFIX_HOLDS_PYTHON.fullmatch(parts[-1]) is not None
        )
    g.interpreter = prefix + ("\\python.exe" if base else "\\Scripts\\python.exe")
    if len(g.cues) < 64:
        g.cues.append(
            {
                "cue": "a console script's launcher frame",
                "means": "the interpreter the plan must use",
                "line": frame[1].strip()[:300],
            }
        )


# A Linux environment's site-packages (<prefix>/lib/pythonX.Y/site-packages): a venv's, a conda environment's, pyenv's,
# whose interpreter is <prefix>/bin/python (a prefix under ~/ as the paste writes it: gpudoctor.cmdline keeps its tilde
# for the shell to expand). The system's own (/usr, /usr/local: Debian's dist-packages, the
# distribution's site-packages) and the user site (~/.local) have no interpreter of their own: python3 stays.
# A platform whose CPython keeps compiled packages under lib64 (sys.platlibdir "lib64": Fedora, RHEL, openSUSE; docs.python.org
# /3/library/sys.html#sys.platlibdir) writes <prefix>/lib64/pythonX.Y/site-packages: its interpreter is still <prefix>/bin/python.
_LINUX_SITE = re.compile(r"^(?P<prefix>(?:/|~/)[^\s:]{1,300}?)/lib(?:64)?/python[23](?:\.\d{1,2})?/site-packages$")
_NO_OWN_PYTHON = re.compile(r"^/usr(?:/local)?$|/\.local$")
# A path the reporter wrote over ("/path/to/env", "/home/$USER/...", "<env>", "..."): not one to run.
_ANONYMISED = re.compile(r"[$<>*]|\.\.\.|/path/to/|/to/", re.IGNORECASE)


# `python -m MODULE` that could not start MODULE exits with its own interpreter's path first: runpy's
# _run_module_as_main writes "%s: %s" % (sys.executable, exc) (python/cpython Lib/runpy.py @ed03b412), the error one of
# _get_module_details' ("No module named X", "Error while finding module specification for 'X' (...)").
_RUNPY_EXIT = re.compile(
    r"(?<![\w/.~-])(?P<python>(?:/|~/)[^\s:`'\"<>|*?]{1,300}/bin/python(?:\d(?:\.\d{1,2})?)?): "
    r"(?:Error while finding module specification for|No module named) "
)


def _interpreter_of_runpy(g: Gathered) -> None:
    """On Linux, the interpreter that printed runpy's own error for `-m MODULE`: sys.executable, the program's."""
    if g.system == "Windows" or g.interpreter is not None:
        return
    for _, lines in g.texts:
        for line in lines:
            said = "/bin/python" in line and (": Error while finding module" in line or ": No module named" in line)
            m = _RUNPY_EXIT.search(line) if said else None
            if m is None or _NO_OWN_PYTHON.search(m.group("python").rsplit("/bin/", 1)[0]) or _ANONYMISED.search(line):
                continue
            g.interpreter = m.group("python")
            if len(g.cues) < 64:
                g.cues.append(
                    {
                        "cue": "the interpreter runpy names",
                        "means": "the interpreter the plan must use",
                        "line": line.strip()[:300],
                    }
                )
            return


def _interpreter_of_env(g: Gathered) -> None:
    """On Linux, the interpreter of the environment a traceback shows the packages in: <prefix>/bin/python, cited
    by the first line naming that path (a fact cites its line: without one, the platform's usual name stays)."""
    if g.system == "Windows" or g.interpreter is not None or not g.site_packages:
        return
    m = _LINUX_SITE.match(g.site_packages[0])
    if m is None or _NO_OWN_PYTHON.search(m.group("prefix")) or _ANONYMISED.search(m.group("prefix")):
        return
    site = g.site_packages[0]
    line = next((ln for _, lines in g.texts for ln in lines if site in ln), None)
    if line is None:  # (a path wrapped onto the next line, _site_paths: cited by its head's line)
        line = next(
            (ln for _, lines in g.texts for ln in lines if _WRAPPED_HEAD.fullmatch(h := ln.strip()) and site.startswith(h)), None
        )
    if line is None:
        return  # (an elided or cut head, ".../env/lib/...", never became a site path: _site_paths)
    g.interpreter = m.group("prefix") + "/bin/python"
    entry = {
        "cue": "an environment's site-packages path",
        "means": "the interpreter the plan must use",
        "line": line.strip()[:300],
    }
    if len(g.cues) < 64:
        g.cues.append(entry)


# An environment's interpreter shown by its path (Linux): a line that is only that path (what `which python` or a
# program's print(sys.executable) writes, a job script's first line of output), or labelled so ("Python executable:
# ..."). The path the program ran, so the one its packages are installed with; where the paste shows two (a login
# node's and a rank's), neither.
_SHOWN_PYTHON = re.compile(
    r"^\s*(?:(?:Python executable|sys\.executable)\s*[:=]\s*)?"
    r"(?P<python>(?:/|~/)[^\s:`'\"<>|*?]{1,300}/bin/python(?:\d(?:\.\d{1,2})?)?)\s*$"
)


def _interpreter_of_path(g: Gathered) -> None:
    """On Linux, with no interpreter read yet: the one environment's interpreter the paste shows by its path
    (_SHOWN_PYTHON), cited by its line; the system's and the user site's have none of their own (python3 stays)."""
    if g.system == "Windows" or g.interpreter is not None:
        return
    shown: dict[str, str] = {}
    for _, lines in g.texts:
        for line in lines:
            if "/bin/python" not in line or (m := _SHOWN_PYTHON.match(line)) is None:
                continue
            shown.setdefault(m.group("python"), line)
    if len(shown) != 1:
        return  # (none, or two interpreters: which one the failing program ran is what an ask decides)
    ((python, line),) = shown.items()
    if _NO_OWN_PYTHON.search(python.rsplit("/bin/", 1)[0]) or _ANONYMISED.search(python):
        return
    g.interpreter = python
    if len(g.cues) < 64:
        g.cues.append(
            {"cue": "an interpreter shown by its path", "means": "the interpreter the plan must use", "line": line.strip()[:300]}
        )


# The console scripts of the GPU stacks that start the failing program (a Python program whose interpreter is the one
# their first line names), each with the arguments that make a line its command rather than prose: torchrun (torch's
# setup.py console_scripts, pytorch/pytorch#64049), accelerate (huggingface/accelerate setup.py @9e72c612:
# "accelerate=accelerate.commands.accelerate_cli:main"), colabfold_batch (sokrypton/ColabFold pyproject.toml @00da419e,
# [tool.poetry.scripts]). A script's wrapper is written by the installer with the installing interpreter in its #! line
# (packaging.python.org, specifications/entry-points: "console_scripts" wrappers).
_CONSOLE_SCRIPTS = {
    "torchrun": r"torchrun\s+(?:-|\S+\.py\b)",
    "accelerate": r"accelerate\s+(?:launch|env|config|test)\b",
    "colabfold_batch": r"colabfold_batch\s+\S",
}
_CONSOLE_RUN = re.compile(
    r"^\s*(?:(?:\([\w.-]{1,60}\)\s*){0,3}(?:[\w.-]{1,60}@[\w.-]{1,60}:)?[~\w/.-]{0,200}\s?[$#]\s+)?"
    r"(?:[A-Z_][A-Z0-9_]*=\S*\s+){0,6}(?P<run>" + "|".join(_CONSOLE_SCRIPTS.values()) + ")"
)
# A traceback's first frame in a console script: `File "/opt/conda/envs/x/bin/colabfold_batch", line 8, in <module>`.
_CONSOLE_FRAME = re.compile(r'^\s*File "(?P<path>(?:/|~/)[^"\s:*?<>|]{1,300}/bin/(?P<name>[\w.-]{1,60}))", line \d+, in <module>')


def _console_script(g: Gathered) -> None:
    """On Linux, where no interpreter was read: the console script that started the program (_CONSOLE_SCRIPTS typed, or
    a traceback frame in a bin/ script), as a cue (facts.CONSOLE_SCRIPT) whose #! line an ask reads first."""
    if g.system == "Windows" or g.interpreter is not None:
        return
    typed: dict[str, str] | None = None
    for _, lines in g.texts:
        for line in lines:
            if "/bin/" in line and (m := _CONSOLE_FRAME.match(line)) and not m.group("name").startswith("python"):
                if not _ANONYMISED.search(m.group("path")):
                    # (the script's own file, where a frame shows it, wins over its name typed: no PATH lookup to trust)
                    typed = {"means": m.group("name"), "path": m.group("path"), "line": line.strip()[:300]}
                    break
            elif typed is None and (m := _CONSOLE_RUN.match(line)) is not None:
                typed = {"means": m.group("run").split()[0], "path": "", "line": line.strip()[:300]}
        else:
            continue
        break
    if typed is not None and len(g.cues) < 64:
        g.cues.append({"cue": CONSOLE_SCRIPT, **typed})


# A PowerShell or cmd.exe prompt standing in an environment's Scripts folder ("PS C:\\app\\venv\\Scripts> pip ..."): the
# environment the reporter means. PowerShell runs no program from the current folder, so the bare pip or python typed
# there is the one PATH finds, not that environment's: its own python.exe is. A venv keeps python.exe in Scripts; a
# CPython installation (Python310) beside Scripts, in its prefix.
_PROMPT_IN_SCRIPTS = re.compile(
    r"^\s*(?:\([\w.-]{1,60}\)\s*)?(?:PS )?(?P<prefix>[A-Za-z]:\\(?:[^\\<>|\n\"*?]{1,120}\\){0,20}?[^\\<>|\n\"*?]{1,120})\\Scripts>",
    re.I,
)


def _interpreter_of_prompt(g: Gathered) -> None:
    """On Windows, with no interpreter shown: the python.exe of the environment whose Scripts folder a prompt stands in,
    cited by that prompt's line."""
    if g.system != "Windows" or g.interpreter is not None:
        return
    for _, lines in g.texts:
        for line in lines:
            if "Scripts>" not in line or (m := _PROMPT_IN_SCRIPTS.match(line[:400])) is None:
                continue
            prefix = m.group("prefix")
            last = prefix.rsplit("\\", 1)[-1]
            base = (
                _PREFIX_HOLDS_PYTHON.fullmatch(last) is not None
                or _CONDA_DIR.search(prefix) is not None
                or _installer_env(prefix.split("\\"))
            )
            g.interpreter = prefix + ("\\python.exe" if base else "\\Scripts\\python.exe")
            entry = {"cue": "a prompt in an environment's Scripts folder", "means": "the interpreter the plan must use"}
            entry["line"] = line.strip()[:300]
            if len(g.cues) < 64:
                g.cues.append(entry)
            return


# The AUTOMATIC1111 family's Windows launcher (webui-user.bat calls webui.bat) makes a venv beside itself and runs
# its Scripts\python.exe (AUTOMATIC1111/stable-diffusion-webui, webui.bat @0f5909a6: `set "VENV_DIR=%~dp0%venv"`,
# `set PYTHON="%VENV_DIR%\Scripts\Python.exe"`); Forge and the other forks keep that launcher.
_LAUNCHER = re.compile(r"(?<![\w-])(?:webui-)?user\.bat\b|(?<![\w-])webui\.bat\b", re.IGNORECASE)
# launch_utils.py's first line of a run ("Launching Web UI with arguments: ..."), where the text shows two
# interpreters: the program's is the launcher's venv, not the shell's python that listed the packages.
_WEBUI_LAUNCHED = re.compile(r"^\s*Launching Web UI with arguments:", re.IGNORECASE)
_VENV_SAID = re.compile(r"\bvenv\b", re.IGNORECASE)


def _interpreter_of_launcher(g: Gathered) -> None:
    """On Windows, with no interpreter shown: a webui launcher (with its venv named, or no run.bat beside it) makes the
    venv's python.exe the interpreter, relative to the folder the launcher is in (where the person runs it)."""
    if g.system != "Windows" or g.interpreter is not None:
        return
    lines = [ln for _, text in g.texts for ln in text]
    launcher = next((ln for ln in lines if _LAUNCHER.search(ln)), None)
    two = any(c.get("cue") == "two interpreters" for c in g.cues)
    if launcher is None and two and not any(_RUN_BAT.search(ln) for ln in lines):
        launcher = next((ln for ln in lines if _WEBUI_LAUNCHED.search(ln)), None)
        if launcher is not None:
            lines = [*lines, "venv"]  # (A1111's webui.bat makes the venv unless the release package's run.bat runs it)
    # (webui.bat makes and runs the venv unless VENV_DIR says otherwise: the launcher is enough, except beside the
    # release package's run.bat, whose own Python runs the web UI: _interpreter_of_package)
    if launcher is None or not (any(_VENV_SAID.search(ln) for ln in lines) or not any(_RUN_BAT.search(ln) for ln in lines)):
        return
    g.interpreter = "venv\\Scripts\\python.exe"
    entry = {
        "cue": "a webui launcher and its venv",
        # (relative to the launcher's folder, where the person runs it; provenance cites a fact by this meaning)
        "means": "the interpreter the plan must use",
        "line": launcher.strip()[:300],
    }
    if len(g.cues) < 64:
        g.cues.append(entry)


# AUTOMATIC1111's release package for Windows (sd.webui.zip: "Extract the contents. Run update.bat. Run run.bat.",
# AUTOMATIC1111/stable-diffusion-webui README, "Installation on Windows 10/11 with NVidia-GPUs using release package")
# holds the web UI in <root>\webui and its own Python in <root>\system\python (reporters' paths show
# sd.webui\system\python\lib\site-packages): run.bat runs the web UI with that python.exe, not a venv's.
_PACKAGE_FRAME = re.compile(r'File "(?P<root>[A-Za-z]:\\[^"\n]{0,300}?)\\webui\\(?:launch\.py|modules\\)', re.IGNORECASE)
_RUN_BAT = re.compile(r"(?<![\w-])run\.bat\b", re.IGNORECASE)


def _interpreter_of_package(g: Gathered) -> None:
    """On Windows, with no interpreter shown: the web UI's frames under <root>\\webui, run.bat named and no venv: the
    release package's own <root>\\system\\python\\python.exe."""
    if g.system != "Windows" or g.interpreter is not None:
        return
    lines = [ln for _, text in g.texts for ln in text]
    frame = next((m for ln in lines if (m := _PACKAGE_FRAME.search(ln[:2_000]))), None)
    if frame is None or not any(_RUN_BAT.search(ln) for ln in lines) or any(_VENV_SAID.search(ln) for ln in lines):
        return
    g.interpreter = frame.group("root") + "\\system\\python\\python.exe"
    if len(g.cues) < 64:
        g.cues.append(
            {
                "cue": "the web UI's release package (run.bat)",
                "means": "the interpreter the plan must use",
                "line": frame.group(0)[:300],
            }
        )


# ComfyUI's portable build for Windows unpacks to ComfyUI_windows_portable\ with the program in ComfyUI\ and its own
# Python beside it, which its launcher runs (.ci/windows_base_files/run_nvidia_gpu.bat @a3e8f2a2:
# `.\python_embeded\python.exe -s ComfyUI\main.py --windows-standalone-build`): a frame under the first names the
# second, the interpreter every pip and probe of that program must use (the shell's python is another Python).
_PORTABLE_FRAME = re.compile(
    r'File "(?P<root>[A-Za-z]:\\[^"\n]{0,300}?\\ComfyUI_windows_portable[^"\\\n]{0,40})\\ComfyUI\\', re.IGNORECASE
)


# The same folder named by any absolute path in ComfyUI's own log or the reporter's words, where no traceback frame
# shows it: the loader's "0.0 seconds (IMPORT FAILED): <root>\\ComfyUI\\custom_nodes\\<node>" and "Cannot import
# <root>\\ComfyUI\\custom_nodes\\<node> module for custom nodes" (comfyanonymous/ComfyUI nodes.py @e60e19b1,
# init_external_custom_nodes and load_custom_node), its "web root: <root>\\ComfyUI\\web", or the portable build's updater
# "<root>\\update\\update_comfyui_and_python_dependencies.bat", whose own line is `..\\python_embeded\\python.exe -s -m
# pip install --upgrade torch ...` (the portable package's update folder). Threads: ComfyUI-Manager#2053 (plans23 2345,
# IMPORT FAILED lines and the updater), comfyanonymous/ComfyUI#6425 (plans14 1446, "web root" and node import times). A path holds no ':' past its drive, so two paths on a line stay apart.
_PORTABLE_PATH = re.compile(
    r"(?<![\w\\])(?P<root>[A-Za-z]:\\[^\"\n:<>|*?]{0,300}?\\ComfyUI_windows_portable[^\"\\\n:<>|*?]{0,40})"
    r"\\(?:ComfyUI|update|python_embeded)\\",
    re.IGNORECASE,
)


def _interpreter_of_portable(g: Gathered) -> None:
    """On Windows, with no interpreter shown: ComfyUI's frames under its portable build's folder make that build's own
    python_embeded\\python.exe the interpreter; failing a frame, any absolute path into that folder does."""
    _interpreter_of_frame(g, _PORTABLE_FRAME, "", "\\python_embeded\\python.exe", "ComfyUI's portable build (python_embeded)")
    _interpreter_of_frame(g, _PORTABLE_PATH, "", "\\python_embeded\\python.exe", "ComfyUI's portable build (python_embeded)")


def _interpreter_of_frame(g: Gathered, frame_of: re.Pattern[str], needle: str, below_root: str, cue: str) -> None:
    """On Windows, with no interpreter shown: the first traceback frame `frame_of` finds (on the lines holding `needle`)
    makes `<its root>below_root` the interpreter, said by the cue `cue`."""
    if g.system != "Windows" or g.interpreter is not None:
        return
    lines = [ln for _, text in g.texts for ln in text]
    frame = next((m for ln in lines if needle in ln and (m := frame_of.search(ln[:2_000]))), None)
    if frame is None:
        return
    g.interpreter = frame.group("root") + below_root
    if len(g.cues) < 64:
        g.cues.append({"cue": cue, "means": "the interpreter the plan must use", "line": frame.group(0)[:300]})


# A frame in a one-click installer's environment (_installer_env) whose root the reporter cut ("...\\app\\installer_files
# \\env\\lib\\site-packages\\..."; a full path is _interpreter_of_site's): that environment's python.exe, relative to the
# folder that holds installer_files, where the installer's scripts run (start_windows.bat's `cd /D "%~dp0"`).
_INSTALLER_FRAME = re.compile(r'File "[^"\n]{0,300}?\\(?P<root>)installer_files\\env\\lib\\site-packages\\', re.IGNORECASE)


def _interpreter_of_installer_frames(g: Gathered) -> None:
    """On Windows, with no interpreter read yet: a traceback's frames in installer_files\\env make its python.exe the
    interpreter, typed in the installer's folder."""
    _interpreter_of_frame(
        g, _INSTALLER_FRAME, "installer_files", "installer_files\\env\\python.exe", "a one-click installer's environment"
    )


# The one-click installer's own scripts named (one_click.py, which start_windows.bat runs in installer_files\\env, and
# the .bat files beside it: start_, cmd_, update_ and update_wizard_windows.bat): the program runs in that environment,
# whose python.exe one_click.py itself calls (oobabooga/text-generation-webui one_click.py @001198de: conda_env_path =
# installer_files/env, `python_path = os.path.join(conda_env_path, "python.exe")` on Windows; its files_to_check list
# names the scripts), not in the Python a fresh cmd.exe finds.
_INSTALLER_SCRIPT = re.compile(r"(?<![\w.-])(?:one_click\.py|(?:start|cmd|update|update_wizard)_windows\.bat)\b", re.IGNORECASE)


def _interpreter_of_installer_scripts(g: Gathered) -> None:
    """On Windows, with no interpreter read yet: the one-click installer's scripts named make its environment's
    python.exe the interpreter, typed in the installer's folder (where the scripts are)."""
    if g.system != "Windows" or g.interpreter is not None:
        return
    line = next((ln for _, text in g.texts for ln in text if _INSTALLER_SCRIPT.search(ln[:2_000])), None)
    if line is None:
        return
    g.interpreter = "installer_files\\env\\python.exe"
    if len(g.cues) < 64:
        g.cues.append(
            {"cue": "a one-click installer's scripts", "means": "the interpreter the plan must use", "line": line.strip()[:300]}
        )


# The AUTOMATIC1111 family's own launch (launch.py calling modules\launch_utils.py's prepare_environment) in a folder of
# its own: webui.bat runs it by the venv it makes beside itself (VENV_DIR, _LAUNCHER's note), and so does Stability
# Matrix for every package it installs (LykosAI/StabilityMatrix, StabilityMatrix.Core/Models/Packages/BaseGitPackage.cs
# @070f80aa: SetupVenv's `Path.Combine(installedPackagePath, "venv")`). A frame in <root>\modules\launch_utils.py thus
# names <root>\venv\Scripts\python.exe, by its full path, where no launcher line said it (the release package's
# <root>\webui beside run.bat is _interpreter_of_package's, read first).
_WEBUI_FRAME = re.compile(r'File "(?P<root>[A-Za-z]:\\[^"\n]{0,300}?)\\modules\\launch_utils\.py"', re.IGNORECASE)


def _interpreter_of_webui_frames(g: Gathered) -> None:
    """On Windows, with no interpreter shown: the web UI's launch frames make its own venv's python.exe the interpreter."""
    _interpreter_of_frame(g, _WEBUI_FRAME, "launch_utils", "\\venv\\Scripts\\python.exe", "the web UI's launch and its venv")


# The AUTOMATIC1111 web UI's own CUDA check (catalogue.toml's a1111-torch-cannot-use-gpu) runs in the interpreter its
# launcher started, and on Linux and macOS that is webui.sh's venv: "python3 venv without trailing slash (defaults to
# ${install_dir}/${clone_dir}/venv)", `venv_dir="venv"`, created and activated before `exec "${python_cmd}"
# "${LAUNCH_SCRIPT}"` unless a venv is already active, which it prints as "python venv already activate: ${VIRTUAL_ENV}"
# (AUTOMATIC1111/stable-diffusion-webui, webui.sh @80adb697; later releases "python venv already activate or run without
# venv: ${VIRTUAL_ENV}"). A shell's python3 is another Python: its torch may well see the GPU while the venv's does
# not. So, with no interpreter shown, the probes run the venv's python from the web UI's folder (Windows is
# _interpreter_of_launcher's and _interpreter_of_webui_frames'; an image run keeps the image's).
# The check's own command as its failure prints it (launch.py's run_python: `run(f'"{python}" -c "{code}"', ...)`, whose
# error names "Command: {command}"): the interpreter itself, by its full path.
_WEBUI_CHECK_COMMAND = LazyPattern(r'Command: "(?P<python>/[^"\n]{1,300}/python[\d.]{0,5})" -c "import torch; assert torch\.cuda')
_WEBUI_VENV_ACTIVE = LazyPattern(r"python venv already activate(?: or run without venv)?: (?P<venv>/[^\s\x22\x27]{1,300})?")


def _interpreter_of_webui_check(g: Gathered) -> None:
    """Off Windows, with no interpreter shown: the web UI's failed CUDA check makes webui.sh's venv the interpreter."""
    if g.system == "Windows" or g.interpreter is not None:
        return
    check = next((e for e in g.errors if e.get("entry") == "a1111-torch-cannot-use-gpu"), None)
    if check is None or any(c.get("cue") in (IMAGE_RUN, PROGRAM_IMAGE) for c in g.cues):
        return
    lines = [ln for _, text in g.texts for ln in text]
    command = next((m for ln in lines if "Command:" in ln and (m := _WEBUI_CHECK_COMMAND.search(ln[:2_000]))), None)
    active = next((m for ln in lines if "already activate" in ln and (m := _WEBUI_VENV_ACTIVE.search(ln[:2_000]))), None)
    if command is not None:
        g.interpreter, active = command.group("python"), command
    elif active is not None and not active.group("venv"):
        return  # (later webui.sh's "... or run without venv: " with nothing after it: python_cmd itself, not shown)
    else:
        g.interpreter = (active.group("venv").rstrip("/") if active else "./venv") + "/bin/python"
    if len(g.cues) < 64:
        g.cues.append(
            {
                "cue": "the web UI's CUDA check and its venv",
                # (relative to the web UI's folder, where webui.sh makes it, unless the launcher named an active one)
                "means": "the interpreter the plan must use",
                "line": (active.group(0) if active else check.line)[:300],
            }
        )


# pip's isolated build environment: a temporary folder (pip-build-env-XXXXXXXX) with the prefixes "normal" and
# "overlay", where pip installs a source distribution's build requirements (pypa/pip src/pip/_internal/build_env.py
# @a76b02bd: `for name in ("normal", "overlay")`). A frame there is pip's build running, with the torch pip fetched for
# it: no interpreter of the reporter's, and gone once pip returns.
_PIP_BUILD_ENV = LazyPattern(r"[\\/]pip-build-env-[\w]{1,40}(?:\\\\|[\\/])(?:normal|overlay)(?:\\\\|[\\/])", re.IGNORECASE)


# pip's answer for a requirement already installed names where: "Requirement already satisfied: numpy in
# /home/u/venv/lib/python3.12/site-packages (2.1.2)" (InstallRequirement.__str__ adds " in " and the installed
# distribution's location: pypa/pip src/pip/_internal/req/req_install.py @d613433a). The site-packages of the
# interpreter that pip ran in; an absolute or home-relative path only (display_path writes one under the working
# directory relative to it, "./venv/...", which names no folder here). A markdown quote or backtick may open the line.
_SATISFIED_IN = re.compile(
    r"^\s*(?:`|> ?)?\s*Requirement already satisfied: [^\s]{1,200} in (?P<site>(?:/|~/)[^\s:*?<>|\"']{1,300}/site-packages) \("
)


def _paths(g: Gathered, text: str) -> None:
    """Where tracebacks and warnings show the frameworks installed: their site-packages, the OS, Python; after them,
    the site-packages pip names for a requirement already satisfied (a traceback's own path comes first)."""
    for site, pkg in _site_paths(text[:MAX_SOURCE_CHARS]):
        if _PIP_BUILD_ENV.search(site):
            if re.match(r"^[A-Za-z]:[\\/]", site):
                g.system = g.system or "Windows"
            continue
        _site(g, site)
        if pkg in ("torch", "tensorflow", "jax", "jaxlib"):
            g.notes.append(f"{pkg} is installed in {site.replace(chr(92), '/')}")
            g.notes = list(dict.fromkeys(g.notes))
            name = "jax" if pkg == "jaxlib" else pkg
            if name not in g.frameworks:
                g.frameworks.append(name)
    if "already satisfied" in text:
        for line in text[:MAX_SOURCE_CHARS].splitlines():
            if "already satisfied" in line and (m := _SATISFIED_IN.match(line)) and not _PIP_BUILD_ENV.search(line):
                _site(g, m.group("site"))


def _from_errors(g: Gathered) -> None:
    """Error texts that state facts of the machine, written where a recorded machine keeps them."""
    plugin_lines = {e.line for e in g.errors if e.kind == "device-plugin-no-nvml"}
    for e in g.errors:
        if e.kind == "driver-version-said":
            g.driver_version = g.driver_version or e.get("version")
        elif e.kind == "windows-build":
            g.windows_build = int(e.get("build") or 0)
        elif e.kind in ("nvrm-api-mismatch", "libcuda-kernel-mismatch"):
            g.nvml_mismatch = g.nvml_mismatch or e.line
        elif e.kind == "wsl-gpu-blocked":
            g.wsl = True
        elif e.kind == "cuda-driver-insufficient" and e.get("driver_cuda"):
            # cudaDriverGetVersion's number (9020 = CUDA 9.2): the newest CUDA the driver supports.
            n = int(e.get("driver_cuda") or 0)
            g.driver_cuda = g.driver_cuda or cuda_from_int(n)
        elif e.kind == "container-requires-cuda" and re.match(r"^\d+\.\d+$", e.get("driver_cuda") or ""):
            g.driver_cuda = g.driver_cuda or e.get("driver_cuda")  # nvidia-docker 1.0 names the driver's CUDA
        elif e.kind == "driver-too-old-found":
            g.driver_cuda = g.driver_cuda or e.get("cuda")
        elif e.kind == "torch-not-compiled-with-cuda":
            if g.torch_cuda is None:
                g.torch_cuda = ""
        elif e.kind == "cuda-version-detected-mismatch":
            if g.torch_cuda is None:
                g.torch_cuda = e.get("torch")
            if g.nvcc is None:
                g.nvcc = f"Cuda compilation tools, release {e.get('nvcc')}, V{e.get('nvcc')}\n"
                g.notes.append(f"nvcc {e.get('nvcc')}: from torch.utils.cpp_extension's message")
        elif e.kind == "companion-built-for" and (have := e.get("have")):
            # xformers prints torch.__version__ after "you have": the installed torch, its local tag its CUDA variant.
            listed = {"collect_env", "pip_list", "pip_freeze", "pip_show", "conda_list", "env_rows", "repl"}
            other = g.distributions.get("torch")
            if other and other != have and any(b["kind"] in listed for b in g.blocks):
                # The program imported `have`; a list showing another torch was run by another interpreter (a
                # `pip list` typed into a shell whose python is not the program's venv): the program's wins.
                g.distributions["torch"] = have
                g.torch_version = have
                g.torch_cuda = None
                g.notes.append(
                    f"torch {have}: the program's, as {e.get('entry')} printed it; the list's torch {other} is another interpreter's"
                )
                if len(g.cues) < 64:
                    g.cues.append(
                        {
                            "cue": "two interpreters",
                            "means": "the list shown is not the program's environment",
                            "line": e.line[:300],
                        }
                    )
            if "torch" not in g.distributions or not any(b["kind"] in listed for b in g.blocks):
                # torch.__version__ as the program printed it outranks a version typed into an issue form.
                g.distributions["torch"] = have
                g.torch_version = have
                g.notes.append(f"torch {have}: the 'you have' of the message {e.get('entry')}")
            g.torch_version = g.torch_version or g.distributions["torch"]
            if g.torch_cuda is None and g.torch_version == have and (tag := re.search(r"\+(cpu|cu(\d+)(\d))$", have)):
                g.torch_cuda = "" if tag.group(1) == "cpu" else f"{tag.group(2)}.{tag.group(3)}"
        elif e.kind == "companion-cuda-mismatch" and g.torch_cuda is None:
            g.torch_cuda = e.get("torch_cuda")  # torch.version.cuda, as the companion's check printed it
        elif e.kind == "jax-plugin-incompatible":
            g.distributions.setdefault(canonical_name(e.get("plugin") or ""), e.get("version") or "")
            g.distributions.setdefault("jaxlib", e.get("jaxlib") or "")
        elif e.kind == "jaxlib-jax-mismatch":
            if e.get("jax"):  # (jax's import check that jaxlib is too old names jax's minimum jaxlib, not jax)
                g.distributions.setdefault("jax", e.get("jax") or "")
            g.distributions.setdefault("jaxlib", e.get("jaxlib") or "")
        elif e.kind in ("arch-unsupported", "triton-gpu-too-old"):
            # The GPU PyTorch named, with the capability it printed: onto the GPU of that name, or the only one known.
            name, cc = e.get("gpu") or "", e.get("capability")
            short = name.replace("NVIDIA ", "")
            for x in g.gpus:
                if short and (x.get("name") or "").replace("NVIDIA ", "") == short:
                    x.setdefault("compute_capability", cc)
            if not g.gpus:
                g.gpus.append({"index": 0, "name": name, "compute_capability": cc, "stated": True})
        elif e.kind == "library-missing":
            soname = e.get("soname") or ""
            if soname.lower().endswith(".dll") and g.system is None:
                g.system = "Windows"  # the loader that names a DLL is Windows'

            if soname not in g.missing:
                g.missing.append(soname)
        elif e.kind == "torch-oom" and not any(x.get("memory") for x in g.gpus):
            # PyTorch's out-of-memory message: the GPU's total and free memory, and what PyTorch itself reserved.
            # What was neither free nor PyTorch's was held by something else (another process, a zombie).
            total, free, reserved = (int(e.get(k) or 0) for k in ("total", "free", "reserved"))
            outside = max(0, total - free - reserved)
            if outside <= reserved:
                # Memory outside PyTorch's allocator is also this process's CUDA context and other libraries: it
                # says something else held the GPU only where it outweighs what PyTorch itself had reserved.
                continue
            index = int(e.get("gpu") or 0)
            gpu = next((x for x in g.gpus if x.get("index") == index), None)
            if gpu is None:
                gpu = {"index": index, "name": ""}
                g.gpus.append(gpu)
            gpu["memory"] = {"total_bytes": total, "free_bytes": free, "used_bytes": outside}
        elif e.kind == "nvidia-smi-not-found":
            if "nvidia-smi" not in g.missing:
                g.missing.append("nvidia-smi")
        elif e.kind == "nvml" and e.get("code") == "driver-library-mismatch":
            g.nvml_mismatch = g.nvml_mismatch or e.line
        elif e.kind == "nvml" and e.get("code") == "nvml-library-missing" and e.line in plugin_lines:
            # the NVIDIA device plugin's own pod could not load NVML (catalogue: k8s-device-plugin-*): the node's runtime
            # gave that pod no driver files, which says nothing of the host's nvidia-smi
            continue
        elif e.kind == "nvml" and e.get("code") in (
            "driver-unreachable",
            "driver-not-loaded",
            "nvml-library-missing",
            "nvml-unknown-error",
            "nvml-insufficient-permissions",
            "no-devices-found",
            "gpu-lost",
        ):
            g.smi_failure = g.smi_failure or e.line
    if g.wsl_said and g.windows_build and g.system in (None, "Windows"):
        # A WSL distribution on this Windows build: WSL 2 (and GPU access) needs build 19041 or later, so an
        # older build runs WSL 1, whose kernel release names the build ("4.4.0-17763-Microsoft").
        g.system = "Linux"
        # (except where the text says WSL 2 on 1903 or 1909, builds 18362 and 18363, which got WSL 2 from their
        # update 1049: Microsoft's manual installation steps, learn.microsoft.com/en-us/windows/wsl/install-manual,
        # "Version 1903 or later, with Build 18362.1049 or later")
        if g.windows_build < 19041 and not (g.wsl2_said and g.windows_build in (18362, 18363)):
            g.release = g.release or f"4.4.0-{g.windows_build}-Microsoft"
        else:
            g.wsl = True
