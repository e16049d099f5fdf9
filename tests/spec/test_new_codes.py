"""docs/findings: torch's companions and compiled extensions (companion-torch-mismatch, extension-symbol-missing,
extension-glibc-too-old), its NCCL (nccl-too-old, nccl-transport-disabled), check --pid (process-library-differs,
process-libraries-mapped) and thin pasted evidence (pasted-error-unexplained): each documented rule as a test on a
recorded machine with one fact changed, or on a minimal pasted text; versions on both sides where the page compares
them."""

from __future__ import annotations

import dataclasses
import json

import pytest

from gpudoctor.checks.base import Context
from gpudoctor.checks.reported import check_reported_unexplained
from gpudoctor.extension_facts import MappedLibrary, ProcessFacts
from gpudoctor.facts import FrameworkLoading, LibraryResolution, LoadingFacts
from gpudoctor.pasted import load_sources, read_pasted
from tests.hostile.test_corpus import run_cli
from tests.spec.machine import facts_of, judged, replace, report
from tests.spec.registry import FIRES, QUIET, states

HEALTHY = "rtx4090-torch231-companions-healthy"  # torch 2.3.1+cu121 with torchvision, torchaudio, flash-attn, xformers, triton


def _ext(facts, **changes):
    """facts with facts.extensions' fields changed."""
    return replace(facts, extensions=dataclasses.replace(facts.extensions, **changes))


def _companion(facts, which: str, **changes):
    """facts with companion `which`'s fields changed."""
    companions = tuple(dataclasses.replace(c, **changes) if c.name == which else c for c in facts.extensions.companions)
    return _ext(facts, companions=companions)


def _objects(facts, name: str, **changes):
    """facts with every compiled extension of companion `name` changed."""
    (c,) = [c for c in facts.extensions.companions if c.name == name]
    return _companion(facts, name, objects=tuple(dataclasses.replace(o, **changes) for o in c.objects))


def _argv(finding) -> list[tuple[str, ...]]:
    return [cmd.words for cmd in finding.remediation.commands if hasattr(cmd, "words")]


# --- companion-torch-mismatch -----------------------------------------------------------------------------


@states("companion-torch-mismatch", FIRES)
def test_a_local_cuda_tag_other_than_torchs_fires():
    """companion-torch-mismatch.md: "a local version tag disagrees: ... torchvision's/torchaudio's `+cu118` against
    torch's" (tests/machines/rtx4090-torchaudio202-cu117-torch201-cu118), and the companion moves to torch."""
    (f,) = judged(facts_of("rtx4090-torchaudio202-cu117-torch201-cu118"), "companion-torch-mismatch")
    assert f.remediation.component == "torch"
    assert any("torchaudio==2.0.2" in argv and "https://download.pytorch.org/whl/cu118" in argv for argv in _argv(f))
    assert ("dist:torch", "2.0.1+cu118") in [(e.source, e.value) for e in f.evidence]


@pytest.mark.parametrize(("pin", "fires"), [("torch==2.3.1", False), ("torch==2.3.0", True), ("torch==2.2.1", True)])
@states("companion-torch-mismatch", FIRES, QUIET)
def test_a_companion_pinning_another_torch_fires(pin, fires):
    """companion-torch-mismatch.md: "the companion's wheel pins torch (`torch==2.1.2`) and the installed torch does not
    satisfy it" (xformers on torch 2.3.1)."""
    facts = _companion(facts_of(HEALTHY), "xformers", requires=("numpy", pin))
    got = judged(facts, "companion-torch-mismatch")
    assert len(got) == int(fires)
    if fires:
        assert got[0].evidence[0].value.startswith("xformers 0.0.27; ")


@states("companion-torch-mismatch", FIRES)
def test_a_companion_pinning_a_torch_without_a_build_puts_torch_back():
    """companion-torch-mismatch.md: "When a companion pins another torch and has no build for this one (vLLM), torch goes
    back to that pin, with the other companions' releases built for it, in one command."
    (tests/machines/rtx4090-vllm032-torch221-undefined-symbol)"""
    (f,) = judged(facts_of("rtx4090-vllm032-torch221-undefined-symbol"), "companion-torch-mismatch")
    assert _argv(f) == [("/usr/bin/python3", "-m", "pip", "install", "torch==2.1.2", "xformers==0.0.23.post1")]


@pytest.mark.parametrize(
    ("tag", "fires"),
    [
        ("+cu12torch2.3cxx11abiFALSE", False),  # torch 2.3, CUDA 12, old ABI: torch's own
        ("+cu12torch2.2cxx11abiFALSE", True),  # another torch minor
        ("+cu12torch2.3cxx11abiTRUE", True),  # the other C++ ABI
        ("+cu11torch2.3cxx11abiFALSE", True),  # another CUDA major
    ],
)
@states("companion-torch-mismatch", FIRES, QUIET)
def test_flash_attns_tag_names_torchs_minor_cuda_major_and_abi(tag, fires):
    """companion-torch-mismatch.md: "flash-attn's `+cu12torch2.4cxx11abiFALSE` (torch minor, CUDA major, C++ ABI against
    torch's exported names)"."""
    facts = _companion(facts_of(HEALTHY), "flash-attn", version="2.5.8" + tag)
    assert len(judged(facts, "companion-torch-mismatch")) == int(fires)


@pytest.mark.parametrize(("triton", "fires"), [("2.3.1", False), ("2.3.0", True), ("2.2.0", True)])
@states("companion-torch-mismatch", FIRES, QUIET)
def test_torchs_triton_pin_decides_triton(triton, fires):
    """companion-torch-mismatch.md: "torch pins triton (`triton==2.3.1`) and another triton is installed." """
    got = judged(_companion(facts_of(HEALTHY), "triton", version=triton), "companion-torch-mismatch")
    assert len(got) == int(fires)
    if fires:
        assert any("triton==2.3.1" in argv for argv in _argv(got[0]))


@states("companion-torch-mismatch", QUIET)
def test_companions_built_for_torch_and_unlisted_unpinned_ones_are_quiet():
    """companion-torch-mismatch.md: companions built for the installed torch are quiet, and "Not judged: companions whose
    release the matrix does not list and whose wheel pins no torch"."""
    facts = facts_of(HEALTHY)
    assert judged(facts, "companion-torch-mismatch") == []
    unlisted = _companion(facts, "xformers", version="0.0.99", requires=("numpy",))  # a release the matrix does not list
    assert judged(unlisted, "companion-torch-mismatch") == []
    apex = _companion(facts, "xformers", name="apex", version="0.1", requires=("packaging",))
    assert judged(apex, "companion-torch-mismatch") == []


# --- extension-symbol-missing -----------------------------------------------------------------------------
SETDEVICE = "rtx4090-flashattn257-torch230-setdevice"  # flash-attn 2.5.7 needs c10::cuda::SetDevice(int); torch 2.3.0


@states("extension-symbol-missing", FIRES)
def test_a_torch_name_no_torch_library_exports_fires():
    """extension-symbol-missing.md: "Rule: a torch name the extension needs that no library read exports."
    (tests/machines/rtx4090-flashattn257-torch230-setdevice)"""
    (f,) = judged(facts_of(SETDEVICE), "extension-symbol-missing")
    assert (f.evidence[0].source, f.evidence[0].value) == (
        "elf:/usr/local/lib/python3.10/dist-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so",
        "undefined _ZN3c104cuda9SetDeviceEi",
    )
    assert any("flash-attn==2.5.8" in argv for argv in _argv(f))


@states("extension-symbol-missing", QUIET)
def test_every_name_exported_or_torchs_tables_unread_is_quiet():
    """extension-symbol-missing.md: every torch name found is quiet; "nothing is called missing without torch's own
    tables"."""
    facts = facts_of(SETDEVICE)
    assert judged(_objects(facts, "flash-attn", unresolved=()), "extension-symbol-missing") == []
    assert judged(_ext(facts, torch_libs=()), "extension-symbol-missing") == []


@states("extension-symbol-missing", FIRES, QUIET)
def test_a_pasted_undefined_symbol_is_judged_the_same_way(tmp_path):
    """extension-symbol-missing.md: "Pasted evidence: an `undefined symbol:` line (`gpudoctor check --from`) is demangled
    and judged the same way"; a name that is not torch's is not this finding."""
    torch_line = (
        "ImportError: /usr/local/lib/python3.10/dist-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: "
        "undefined symbol: _ZN3c104cuda9SetDeviceEi"
    )
    doc = _pasted(tmp_path, torch_line)
    got = [f for f in doc["findings"] if f["code"] == "extension-symbol-missing"]
    assert [e["value"] for e in got[0]["evidence"]] == [torch_line.removeprefix("ImportError: ")]
    other = "ImportError: /opt/app/libfoo.so: undefined symbol: png_create_read_struct"
    assert "extension-symbol-missing" not in [f["code"] for f in _pasted(tmp_path, other)["findings"]]


# --- extension-glibc-too-old ------------------------------------------------------------------------------
GLIBC231 = "rtx4090-flashattn274-debian11-glibc231"  # flash-attn 2.7.4 needs GLIBC_2.32; Debian 11's libc: 2.31


@pytest.mark.parametrize(("have", "fires"), [("2.31", True), ("1.99", True), ("2.32", False), ("2.33", False), ("3.0", False)])
@states("extension-glibc-too-old", FIRES, QUIET)
def test_the_newest_glibc_needed_against_the_newest_libc_defines(have, fires):
    """extension-glibc-too-old.md: "Rule: the newest `GLIBC_` (or `GLIBCXX_`) version the extension needs is newer than
    the newest the library found defines." (flash-attn needs GLIBC_2.32)"""
    got = judged(_ext(facts_of(GLIBC231), system_glibc=have), "extension-glibc-too-old")
    assert len(got) == int(fires)
    if fires:
        assert [(e.source, e.value) for e in got[0].evidence][1] == (
            "elf:/lib/x86_64-linux-gnu/libc.so.6",
            f"defines up to GLIBC_{have}",
        )
        assert ("FLASH_ATTENTION_FORCE_BUILD", "TRUE") in [
            (c.name, c.value) for c in got[0].remediation.commands if hasattr(c, "value")
        ]


@pytest.mark.parametrize(
    ("have", "fires"),
    [("3.4.29", True), ("3.3.30", True), ("2.4.30", True), ("3.4.30", False), ("3.4.31", False), ("3.5.0", False)],
)
@states("extension-glibc-too-old", FIRES, QUIET)
def test_the_newest_glibcxx_needed_against_the_newest_libstdcxx_defines(have, fires):
    """extension-glibc-too-old.md: "needs a newer symbol version ... of the C++ runtime (`GLIBCXX_3.4.30`) than the ...
    `libstdc++.so.6` the dynamic loader finds here defines" (the extension needing GLIBCXX_3.4.30, libc new enough)."""
    facts = _objects(_ext(facts_of(GLIBC231), system_glibc="2.35", system_glibcxx=have), "flash-attn", glibcxx="3.4.30")
    got = judged(facts, "extension-glibc-too-old")
    assert len(got) == int(fires)
    if fires:
        assert got[0].evidence[0].value == "needs GLIBCXX_3.4.30"


@pytest.mark.parametrize(
    ("need", "have", "fires"),
    [("3.4.30", "3.4.9", True), ("3.4.9", "3.4.30", False), ("3.4.10", "3.4.9", True), ("3.4.9", "3.4.10", False)],
)
@states("extension-glibc-too-old", FIRES, QUIET)
def test_glibcxx_versions_are_compared_as_numbers_not_text(need, have, fires):
    """extension-glibc-too-old.md: "the newest `GLIBCXX_` version the extension needs is newer than the newest the library
    found defines"; versions.py: "compared as numbers" (3.4.9 < 3.4.10 < 3.4.30, where text order says the opposite)."""
    facts = _objects(_ext(facts_of(GLIBC231), system_glibc="2.35", system_glibcxx=have), "flash-attn", glibcxx=need)
    got = judged(facts, "extension-glibc-too-old")
    assert len(got) == int(fires)
    if fires:
        assert got[0].evidence[0].value == f"needs GLIBCXX_{need}"


# --- nccl-too-old -----------------------------------------------------------------------------------------
NCCL2181 = "rtx4090-torch220-nccl2181-ncclcommregister"  # torch 2.2.0 pins nvidia-nccl-cu12==2.19.3; 2.18.1 installed


def _nccl_wheel(facts, version: str):
    return replace(facts, frameworks={"nvidia_wheels": {**facts.frameworks.nvidia_wheels, "nvidia-nccl-cu12": version}})


@pytest.mark.parametrize(
    ("wheel", "fires"), [("2.19.3", False), ("2.19.2", True), ("2.18.99", True), ("1.19.3", True), ("2.18.1", True)]
)
@states("nccl-too-old", FIRES, QUIET)
def test_the_installed_wheel_against_torchs_pin(wheel, fires):
    """nccl-too-old.md: "Rule: the installed wheel does not satisfy torch's pin" (torch 2.2.0+cu121:
    nvidia-nccl-cu12==2.19.3)."""
    got = judged(_nccl_wheel(facts_of(NCCL2181), wheel), "nccl-too-old")
    assert len(got) == int(fires)
    if fires:
        assert _argv(got[0]) == [("/usr/bin/python3", "-m", "pip", "install", "nvidia-nccl-cu12==2.19.3")]
        assert ("dist:nvidia-nccl-cu12", wheel) in [(e.source, e.value) for e in got[0].evidence]


@pytest.mark.parametrize(
    ("system", "fires"), [("2.19.3", False), ("2.19.4", False), ("2.20.0", False), ("2.19.2", True), ("2.18.1", True)]
)
@states("nccl-too-old", FIRES, QUIET)
def test_a_system_nccl_the_loader_finds_first_against_torchs_pin(system, fires):
    """nccl-too-old.md: "or torch resolves a `libnccl.so.2` outside the wheel's `nvidia/nccl/lib` whose version is
    older than the pin" (the wheel itself at the pin)."""
    path = f"/usr/lib/x86_64-linux-gnu/libnccl.so.{system}"
    res = LibraryResolution("libnccl.so.2", path, "LD_LIBRARY_PATH", version=system)
    loading = LoadingFacts(None, (), (), (), (FrameworkLoading("torch", (), (res,)),))
    facts = replace(_nccl_wheel(facts_of(NCCL2181), "2.19.3"), loading=loading)
    got = judged(facts, "nccl-too-old")
    assert len(got) == int(fires)
    if fires:
        assert got[0].evidence[0].value == f"libnccl.so.2 -> {path} via LD_LIBRARY_PATH"


@states("nccl-too-old", QUIET)
def test_the_wheels_own_copy_or_no_pin_is_quiet():
    """nccl-too-old.md: only a copy "outside the wheel's `nvidia/nccl/lib`" counts, and the rule is against torch's pin:
    a torch whose Requires-Dist pins no NCCL is not judged."""
    wheel = "/usr/local/lib/python3.10/dist-packages/nvidia/nccl/lib/libnccl.so.2"
    res = LibraryResolution("libnccl.so.2", wheel, "RUNPATH of libtorch_cuda.so", version="2.18.1")
    loading = LoadingFacts(None, (), (), (), (FrameworkLoading("torch", (), (res,)),))
    facts = facts_of(NCCL2181)
    assert judged(replace(_nccl_wheel(facts, "2.19.3"), loading=loading), "nccl-too-old") == []
    assert judged(_ext(facts, torch_requires=("filelock",)), "nccl-too-old") == []


# --- nccl-transport-disabled ------------------------------------------------------------------------------
P2P_OFF = "rtx4090-nccl-p2p-disabled"  # NCCL_P2P_DISABLE=1


def _env(facts, **variables):
    env = {k: v for k, v in facts.platform.env.items() if not k.startswith("NCCL_")}
    return replace(facts, platform={"env": {**env, **variables}})


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("NCCL_P2P_DISABLE", "1"),
        ("NCCL_SHM_DISABLE", "1"),
        ("NCCL_IB_DISABLE", "1"),
        ("NCCL_NVLS_ENABLE", "0"),
        ("NCCL_P2P_LEVEL", "LOC"),
        ("NCCL_NET_GDR_LEVEL", "LOC"),
    ],
)
@states("nccl-transport-disabled", FIRES)
def test_each_variable_set_to_turn_its_transport_off_fires(name, value):
    """nccl-transport-disabled.md: "`NCCL_P2P_DISABLE=1`, `NCCL_SHM_DISABLE=1`, `NCCL_IB_DISABLE=1`, `NCCL_NVLS_ENABLE=0`,
    `NCCL_P2P_LEVEL=LOC` or `NCCL_NET_GDR_LEVEL=LOC`"; "Rule: a variable set to the value that turns its transport off.
    Info"."""
    (f,) = judged(_env(facts_of(P2P_OFF), **{name: value}), "nccl-transport-disabled")
    assert f.severity.name == "INFO"
    assert [(e.source, e.value) for e in f.evidence] == [("env", f"{name}={value}")]


@states("nccl-transport-disabled", FIRES)
def test_the_recorded_machine_fires():
    """nccl-transport-disabled.md: "Often set on purpose (RTX 4090s, whose peer-to-peer hangs)"
    (tests/machines/rtx4090-nccl-p2p-disabled)."""
    (f,) = judged(facts_of(P2P_OFF), "nccl-transport-disabled")
    assert [e.value for e in f.evidence] == ["NCCL_P2P_DISABLE=1"]


@pytest.mark.parametrize(
    "variables",
    [
        {},
        {"NCCL_P2P_DISABLE": "0"},
        {"NCCL_IB_DISABLE": "0", "NCCL_SHM_DISABLE": "0"},
        {"NCCL_NVLS_ENABLE": "1"},
        {"NCCL_P2P_LEVEL": "NVL"},
        {"NCCL_NET_GDR_LEVEL": "PHB"},
        {"NCCL_DEBUG": "INFO", "NCCL_SOCKET_IFNAME": "eth0"},
    ],
    ids=["unset", "p2p-0", "ib-shm-0", "nvls-1", "p2p-level-nvl", "gdr-level-phb", "other-variables"],
)
@states("nccl-transport-disabled", QUIET)
def test_unset_other_values_and_other_variables_are_quiet(variables):
    """nccl-transport-disabled.md: "Rule: a variable set to the value that turns its transport off"; "no other `NCCL_*`
    variable is read"."""
    assert judged(_env(facts_of(P2P_OFF), **variables), "nccl-transport-disabled") == []


# --- process-library-differs / process-libraries-mapped ---------------------------------------------------
PID = 4242
WHEEL_CUDART = "/usr/local/lib/python3.10/dist-packages/nvidia/cuda_runtime/lib/libcudart.so.12"
SYSTEM_CUDART = "/usr/local/cuda-12.4/targets/x86_64-linux/lib/libcudart.so.12.4.127"
CUDNN = "/usr/local/lib/python3.10/dist-packages/nvidia/cudnn/lib/libcudnn.so.8"


def _process(*mapped: str, error: str | None = None):
    proc = ProcessFacts(
        PID,
        tuple(MappedLibrary(p.rsplit("/", 1)[1], p) for p in mapped),
        error,
        (("torch", "libcudart.so.12", WHEEL_CUDART), ("torch", "libcudnn.so.8", CUDNN)),
    )
    return replace(facts_of(HEALTHY), process=proc)


@pytest.mark.parametrize("mapped", [(SYSTEM_CUDART, CUDNN), (WHEEL_CUDART, SYSTEM_CUDART, CUDNN)], ids=["other", "both"])
@states("process-library-differs", FIRES)
def test_a_predicted_family_mapped_from_another_file_fires(mapped):
    """process-library-differs.md: "Rule: a library family (`libcudart`, `libcudnn`, `libnccl`, ...) the model predicts
    that the process mapped from another file." """
    (f,) = judged(_process(*mapped), "process-library-differs")
    assert f.severity.name == "WARNING"
    assert (f"file:/proc/{PID}/maps", SYSTEM_CUDART) in [(e.source, e.value) for e in f.evidence]
    assert ("loader", f"torch: {WHEEL_CUDART}") in [(e.source, e.value) for e in f.evidence]


@states("process-library-differs", QUIET)
def test_the_predicted_files_families_not_predicted_and_no_pid_are_quiet():
    """process-library-differs.md: only a family the model predicts, mapped from another file; and only "With `gpudoctor
    check --pid PID`"."""
    assert judged(_process(WHEEL_CUDART, CUDNN), "process-library-differs") == []
    assert judged(_process(WHEEL_CUDART, "/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.14"), "process-library-differs") == []
    assert judged(facts_of(HEALTHY), "process-library-differs") == []
    assert judged(_process(error="permission denied (EACCES)"), "process-library-differs") == []


@pytest.mark.parametrize(
    ("mapped", "torch_predicts", "tf_predicts", "verdict"),
    [
        # One framework's copy, but another framework predicts another file: some framework's copy is not this one.
        (WHEEL_CUDART, WHEEL_CUDART, SYSTEM_CUDART, "differs"),
        (SYSTEM_CUDART, WHEEL_CUDART, SYSTEM_CUDART, "differs"),
        # Every framework's copy is this file.
        (WHEEL_CUDART, WHEEL_CUDART, WHEEL_CUDART, "as-predicted"),
        # Neither framework's copy.
        ("/opt/job/lib/libcudart.so.12", WHEEL_CUDART, SYSTEM_CUDART, "differs"),
    ],
    ids=["torchs-copy-not-tfs", "tfs-copy-not-torchs", "every-frameworks-copy", "neither"],
)
@states("process-library-differs", FIRES, QUIET)
def test_the_verdict_is_as_predicted_only_when_it_is_every_frameworks_copy(mapped, torch_predicts, tf_predicts, verdict):
    """memory.md: "`as-predicted`: the file is the copy the model predicts for every framework that loads this
    library"; "`differs`: another file than some framework's predicted copy". One decider, compare_mapped, gives
    memory --pid's verdict, its exit status 1 (`differs`) and check --pid's finding."""
    from gpudoctor.memory.mapped import differs, mapped_document
    from gpudoctor.probes.process import compare_mapped

    predicted = (("torch", "libcudart.so.12", torch_predicts), ("tensorflow", "libcudart.so.12", tf_predicts))
    proc = ProcessFacts(PID, (MappedLibrary(mapped.rsplit("/", 1)[1], mapped),), None, predicted)
    (v,) = compare_mapped(proc)
    assert (v.library, v.path, v.verdict) == ("libcudart", mapped, verdict)
    assert differs(proc) is (verdict == "differs")
    assert [lib["verdict"] for lib in mapped_document(proc)["libraries"]] == [verdict]
    facts = replace(facts_of(HEALTHY), process=proc)
    assert len(judged(facts, "process-library-differs")) == (verdict == "differs")


@states("process-libraries-mapped", FIRES)
def test_the_mapped_libraries_are_always_shown_with_pid():
    """process-libraries-mapped.md: "the CUDA libraries the running process has mapped, each with its file"; "Rule:
    always shown with `--pid`" (also beside a disagreement, and when nothing was mapped)."""
    for mapped in [(WHEEL_CUDART, CUDNN), (SYSTEM_CUDART,), ()]:
        (f,) = judged(_process(*mapped), "process-libraries-mapped")
        assert f.severity.name == "INFO"
        assert [(e.source, e.value) for e in f.evidence] == [(f"file:/proc/{PID}/maps", p) for p in mapped]


@states("process-libraries-mapped", FIRES)
def test_why_they_could_not_be_read_is_shown():
    """process-libraries-mapped.md: "or why they could not be read (no such process; another user's process without
    root)"."""
    (f,) = judged(_process(error="permission denied (EACCES)"), "process-libraries-mapped")
    assert [(e.source, e.value) for e in f.evidence] == [(f"file:/proc/{PID}/maps", "permission denied (EACCES)")]


@states("process-libraries-mapped", QUIET)
def test_without_pid_nothing_is_shown():
    """process-libraries-mapped.md: "With `gpudoctor check --pid PID`": without it, no finding."""
    assert judged(facts_of(HEALTHY), "process-libraries-mapped") == []


# --- pasted-error-unexplained -----------------------------------------------------------------------------
NO_KERNEL = "RuntimeError: CUDA error: no kernel image is available for execution on the device"


def _pasted(tmp_path, text: str) -> dict:
    paste = tmp_path / "issue.txt"
    paste.write_text(text + "\n", encoding="utf-8")
    code, out, err = run_cli("check", "--from", str(paste), "--format", "json")
    doc = json.loads(out)
    assert code == doc["exit_code"], err
    return doc


@states("pasted-error-unexplained", FIRES)
def test_a_recognised_failure_nothing_explains_is_named_and_fails(tmp_path):
    """pasted-error-unexplained.md: "If the text still holds a recognised failure ..., this finding names it, with up to
    three of its lines as evidence"; "a warning, so `check --from` exits 1"."""
    doc = _pasted(tmp_path, NO_KERNEL)
    assert doc["exit_code"] == 1
    (f,) = doc["findings"]
    assert (f["code"], f["severity"]) == ("pasted-error-unexplained", "warning")
    assert [e["value"] for e in f["evidence"]] == [NO_KERNEL]


@pytest.mark.parametrize(
    "text",
    [
        # PyTorch's out-of-memory: the program's size.
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 7.79 GiB total capacity; "
        "6.50 GiB already allocated; 3.50 MiB free; 6.60 GiB reserved in total by PyTorch)",
        # TensorFlow's warning-level log of a library it could not load (google/lightweight_mmm#23).
        "2022-06-22 15:44:53.578885: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load "
        "dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found",
    ],
    ids=["oom", "tf-warning"],
)
@states("pasted-error-unexplained", QUIET)
def test_lines_that_are_not_failures_are_quiet(tmp_path, text):
    """pasted-error-unexplained.md: "Not failures: ... PyTorch's out-of-memory ..., and TensorFlow's own warning-level log
    of a library it could not load"."""
    assert "pasted-error-unexplained" not in [f["code"] for f in _pasted(tmp_path, text)["findings"]]


@states("pasted-error-unexplained", QUIET)
def test_a_failure_another_check_explains_is_not_unexplained(tmp_path):
    """pasted-error-unexplained.md: "every other check ran first on the same facts and none found anything at warning or
    error" (the driver message names its cause: framework-driver-too-old)."""
    doc = _pasted(tmp_path, "RuntimeError: The NVIDIA driver on your system is too old (found version 11040).")
    assert [f["code"] for f in doc["findings"]] == ["framework-driver-too-old"]


@states("pasted-error-unexplained", FIRES, QUIET)
def test_only_on_a_partial_snapshot(tmp_path):
    """pasted-error-unexplained.md: "When: only on a partial snapshot (pasted text). A live machine shows its own
    facts." (the facts the pasted line gives, marked partial as pasted, and not)"""
    paste = tmp_path / "issue.txt"
    paste.write_text(NO_KERNEL + "\n", encoding="utf-8")
    facts = report(read_pasted(load_sources([str(paste)]))).facts
    assert [e.kind for e in facts.pasted.errors] == ["no-kernel-image"]
    (f,) = judged(facts, "pasted-error-unexplained")
    assert [(e.source, e.value) for e in f.evidence] == [("pasted", NO_KERNEL)]
    # The rule itself, with no other finding beside it (a live machine's own gaps are findings of their own).
    live = replace(facts, pasted=dataclasses.replace(facts.pasted, partial=False))
    assert [f.code for f in check_reported_unexplained(facts, Context(None), ())] == ["pasted-error-unexplained"]
    assert list(check_reported_unexplained(live, Context(None), ())) == []
