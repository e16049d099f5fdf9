"""Companions' symbol check on real shared objects built here with cc, and check --pid on a live process.

The torch-like library and the extension are C: the mangled C++ names are valid C identifiers, so cc builds
objects whose .dynsym holds exactly the names torch's libraries and an extension hold. Skipped, with the
reason, where no C compiler is installed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from gpudoctor import symbols
from gpudoctor.elf import ElfError
from gpudoctor.elfsyms import ElfSymbols, read_symbols, read_symbols_file

CC = shutil.which("cc") or shutil.which("gcc")
needs_cc = pytest.mark.skipif(CC is None, reason="no C compiler (cc) to build the test's shared objects")

SET_DEVICE_OLD = "_ZN3c104cuda9SetDeviceEi"  # c10::cuda::SetDevice(int): torch < 2.3
SET_DEVICE_NEW = "_ZN3c104cuda9SetDeviceEa"  # c10::cuda::SetDevice(signed char): torch 2.3+
ERROR_OLD_ABI = "_ZN3c105ErrorC2ENS_14SourceLocationESs"

TORCH_LIKE = f"""
void {SET_DEVICE_NEW}(signed char d) {{ (void)d; }}
void {ERROR_OLD_ABI}(void) {{}}
void helper_not_torch(void) {{}}
"""
EXTENSION = f"""
#include <string.h>
extern void {SET_DEVICE_OLD}(int);
extern void {SET_DEVICE_NEW}(signed char);
extern void weak_optional(void) __attribute__((weak));
int ext_init(char *dst, const char *src, unsigned long n) {{
    {SET_DEVICE_OLD}(0);
    {SET_DEVICE_NEW}(0);
    if (weak_optional) weak_optional();
    memcpy(dst, src, n);
    return 0;
}}
"""


def _build(tmp: Path, name: str, source: str, out: Path) -> Path:
    src = tmp / f"{name}.c"
    src.write_text(source, encoding="utf-8")
    out.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([CC, "-shared", "-fPIC", "-O0", "-o", str(out), str(src)], check=True, capture_output=True, timeout=60)
    return out


@needs_cc
def test_undefined_and_exported_symbols_of_real_objects(tmp_path):
    lib = _build(tmp_path, "c10", TORCH_LIKE, tmp_path / "lib" / "libc10_cuda.so")
    ext = _build(tmp_path, "ext", EXTENSION, tmp_path / "ext.so")
    needed = read_symbols_file(str(ext))
    names = dict(needed.undefined)
    assert SET_DEVICE_OLD in names and SET_DEVICE_NEW in names
    assert "weak_optional" not in names  # weak: the loader lets it be missing
    assert names["memcpy"] is not None and names["memcpy"].startswith("GLIBC_")  # versioned through .gnu.version_r
    assert "libc.so.6" in needed.needs and names["memcpy"] in needed.needs["libc.so.6"]
    exported = read_symbols_file(str(lib), symbols.is_torch)
    assert exported.defined == {SET_DEVICE_NEW, ERROR_OLD_ABI}  # helper_not_torch filtered out by `keep`
    assert {n for n, _ in needed.undefined if symbols.is_torch(n)} - exported.defined == {SET_DEVICE_OLD}
    # The record a snapshot holds reads back the same.
    assert ElfSymbols.from_json(json.loads(json.dumps(needed.to_json()))) == needed


@needs_cc
def test_damaged_objects_raise_one_line_errors(tmp_path):
    lib = _build(tmp_path, "c10", TORCH_LIKE, tmp_path / "libc10.so").read_bytes()
    with pytest.raises(ElfError):
        read_symbols(lambda off, n: lib[off : off + n][: max(0, 4096 - off)], 4096)  # truncated
    hostile = bytearray(lib)
    hostile[60:62] = (0xFFFF).to_bytes(2, "little")  # e_shnum
    with pytest.raises(ElfError, match="section headers"):
        read_symbols(lambda off, n: bytes(hostile[off : off + n]), len(hostile))
    with pytest.raises(ElfError, match="not an ELF"):
        read_symbols(lambda off, n: b"#!/bin/sh\n" + bytes(54), 64)


def test_torch_names_read_and_judged():
    assert symbols.demangle(SET_DEVICE_OLD) == "c10::cuda::SetDevice(int)"
    assert symbols.demangle("_ZNK3c107SymBool10guard_boolEPKcl") == "c10::SymBool::guard_bool(char const*, long) const"
    assert symbols.exporting_library(SET_DEVICE_OLD) == "libc10_cuda.so"
    assert symbols.exporting_library("_ZNK3c107SymBool10guard_boolEPKcl") == "libc10.so"
    assert symbols.exporting_library("_ZN2at4_ops10contiguous4callERKNS_6TensorEN3c1012MemoryFormatE") == "libtorch_cpu.so"
    assert symbols.exporting_library("PyLong_FromLong") is None
    cxx11 = "_ZN3c105ErrorC2ENS_14SourceLocationENSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE"
    assert (symbols.cxx11_abi(cxx11), symbols.cxx11_abi(ERROR_OLD_ABI), symbols.cxx11_abi(SET_DEVICE_OLD)) == (True, False, None)
    assert symbols.demangle("not_mangled") == "not_mangled"


def test_msvc_names_of_torch_read_and_judged():
    # Windows names the entry point it could not find in MSVC's mangling: scopes innermost first, up to "@@".
    name = "?element_size@TensorIteratorBase@at@@QEBA_JH@Z"
    assert (symbols.demangle(name), symbols.is_torch(name), symbols.exporting_library(name)) == (
        "at::TensorIteratorBase::element_size",
        True,
        "torch_cpu.dll",
    )
    assert symbols.exporting_library("?SetDevice@cuda@c10@@YAXH@Z") == "c10_cuda.dll"
    # Retyped from the dialog ("?" and "@@" lost, lower case, a space): still torch's, read up to its namespace.
    retyped = "element size@tensoriteratorbase@at@QEBA_JH@Z"
    assert (symbols.is_torch(retyped), symbols.demangle(retyped)) == (True, "at::tensoriteratorbase::element size")
    # Another library's MSVC name is not torch's, and gcc's two ABIs are not read from it.
    assert (symbols.is_torch("?foo@bar@@QEAAXXZ"), symbols.cxx11_abi(name)) == (False, None)


@needs_cc
def test_whole_doctor_on_an_environment_built_here(tmp_path):
    """Real objects read live (recorded), then the recorded machine judged by the whole doctor."""
    from gpudoctor.doctor import diagnose
    from gpudoctor.facts import FrameworkFacts, TorchFacts
    from gpudoctor.host import PythonEnv
    from gpudoctor.host.live import LiveHost
    from gpudoctor.host.replay import RecordingHost, ReplayHost
    from gpudoctor.host.snapshot import load_snapshot
    from gpudoctor.probed import Absent, Found
    from gpudoctor.probes.extensions import probe_extensions

    site = "/site"
    root = tmp_path / "root"
    _build(tmp_path, "c10", TORCH_LIKE, root / "site/torch/lib/libc10_cuda.so")
    ext_name = "flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so"
    _build(tmp_path, "ext", EXTENSION, root / "site" / ext_name)
    meta = root / "site/flash_attn-2.5.7.dist-info/METADATA"
    meta.parent.mkdir(parents=True)
    meta.write_text("Metadata-Version: 2.1\nName: flash_attn\nVersion: 2.5.7\nRequires-Dist: torch\n\nText.\n", encoding="utf-8")
    env = PythonEnv("/usr/bin/python3", "3.10.12", site_packages=[site], distributions={"torch": "2.3.0", "flash-attn": "2.5.7"})
    torch = TorchFacts("2.3.0", "12.1", None, site, (), True)
    frameworks = FrameworkFacts(Found(env, "t"), "PATH", Found(torch, "t"), Absent("a", "t"), Absent("a", "t"), {})
    recording = RecordingHost(LiveHost(str(root)))
    live = probe_extensions(recording, frameworks)
    assert live is not None and live.companions[0].objects[0].unresolved == (SET_DEVICE_OLD,)
    assert live.torch_libs == ("libc10_cuda.so",)

    snapshot = recording.snapshot
    snapshot["python"] = env.to_json()
    snapshot["files"].update({f"{site}/torch/lib/libc10_cuda.so": {"type": "file", "binary": True}})
    snapshot["files"][f"{site}/{ext_name}"] = {"type": "file", "binary": True}
    path = tmp_path / "machine.json"
    path.write_text(json.dumps(snapshot), encoding="utf-8")
    report = diagnose(ReplayHost(load_snapshot(str(path))))
    found = [f for f in report.findings if f.code == "extension-symbol-missing"]
    assert len(found) == 1
    assert SET_DEVICE_OLD in found[0].detail and "libc10_cuda.so" in found[0].detail
    assert found[0].remediation is not None
    argv = found[0].remediation.commands[-1].argv
    assert argv[-1] == "flash-attn==2.5.8" and "--no-build-isolation" in argv


def test_no_companion_reads_nothing():
    """check's speed without companions: the probe returns before any file is touched."""
    from gpudoctor.facts import FrameworkFacts
    from gpudoctor.host import PythonEnv
    from gpudoctor.probed import Absent, Found
    from gpudoctor.probes.extensions import probe_extensions

    class Untouchable:
        def __getattr__(self, name):
            raise AssertionError(f"the probe read {name} with no companion installed")

    env = PythonEnv("/usr/bin/python3", "3.10", site_packages=["/s"], distributions={"torch": "2.3.0", "numpy": "1.26"})
    frameworks = FrameworkFacts(Found(env, "t"), "PATH", Absent("a", "t"), Absent("a", "t"), Absent("a", "t"), {})
    assert probe_extensions(Untouchable(), frameworks) is None  # type: ignore[arg-type]


LOADER = r"""
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (!dlopen(argv[i], RTLD_NOW | RTLD_GLOBAL)) { fprintf(stderr, "%s\n", dlerror()); return 2; }
    }
    printf("ready\n");
    fflush(stdout);
    getchar();  /* hold the mappings until the test closes stdin */
    return 0;
}
"""


@needs_cc
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/PID/maps is Linux's")
def test_pid_reports_what_a_live_process_mapped(tmp_path):
    from gpudoctor.checks.process import check_process
    from gpudoctor.extension_facts import ProcessFacts
    from gpudoctor.facts import FrameworkLoading, LibraryResolution, LoadingFacts
    from gpudoctor.host.live import LiveHost
    from gpudoctor.probes.process import probe_process

    chosen = _build(tmp_path, "cudart", "int cudart_marker(void) { return 12; }\n", tmp_path / "job/lib/libcudart.so.12")
    predicted = _build(tmp_path, "cudart2", "int cudart_marker(void) { return 12; }\n", tmp_path / "env/lib/libcudart.so.12")
    nccl = _build(tmp_path, "nccl", "int nccl_marker(void) { return 2; }\n", tmp_path / "job/lib/libnccl.so.2")
    (tmp_path / "loader.c").write_text(LOADER, encoding="utf-8")
    exe = tmp_path / "loader"
    subprocess.run([CC, "-o", str(exe), str(tmp_path / "loader.c"), "-ldl"], check=True, capture_output=True, timeout=60)
    proc = subprocess.Popen([str(exe), str(chosen), str(nccl)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        loading = LoadingFacts(
            None,
            (),
            (),
            (),
            (
                FrameworkLoading(
                    "torch", (), (LibraryResolution("libcudart.so.12", str(predicted), "RUNPATH of libtorch_cuda.so"),)
                ),
            ),
        )
        facts = probe_process(LiveHost(), proc.pid, loading)
        mapped = {m.path for m in facts.mapped}
        assert {str(chosen), str(nccl)} <= mapped
        assert facts.predicted == (("torch", "libcudart.so.12", str(predicted)),)
        findings = list(check_process(SimpleNamespace(process=facts), None))  # type: ignore[arg-type]
        codes = [f.code for f in findings]
        assert codes == ["process-library-differs", "process-libraries-mapped"]
        assert any(e.value == str(chosen) for e in findings[0].evidence)

        # The command line: check --pid puts the same answer in the JSON report.
        out = subprocess.run(
            [sys.executable, "-m", "gpudoctor", "check", "--pid", str(proc.pid), "--format", "json"],
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "GPUDOCTOR_FORMAT": "json"},
        )
        report = json.loads(out.stdout)
        assert report["facts"]["process"]["pid"] == proc.pid
        assert str(chosen) in [m["path"] for m in report["facts"]["process"]["mapped"]]
        assert "process" in report["timings_s"] and "extensions" in report["timings_s"]  # shown by -v

        # memory --pid lays out the same verdicts, per library: against the hand-made prediction above ...
        from gpudoctor.memory.mapped import mapped_document

        rows = {r["path"]: r for r in mapped_document(facts)["libraries"]}
        assert rows[str(chosen)] == {
            "library": "libcudart",
            "path": str(chosen),
            "verdict": "differs",
            "predicted": [{"framework": "torch", "path": str(predicted)}],
        }
        assert rows[str(nccl)]["verdict"] == "not-predicted" and rows[str(nccl)]["library"] == "libnccl"
        # ... and on the command line, with this machine's own loader model (no framework here predicts a copy;
        # without a GPU the view says so and exits 3, and the process is read all the same).
        out = subprocess.run(
            [sys.executable, "-m", "gpudoctor", "memory", "--pid", str(proc.pid), "--format", "json"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        view = json.loads(out.stdout)
        assert view["schema"] == "gpudoctor.memory/1" and view["exit_code"] == out.returncode
        assert out.returncode == (3 if view["problem"] else 0)
        got = {r["path"]: r for r in view["process"]["libraries"]}
        assert view["process"]["pid"] == proc.pid and view["process"]["error"] is None
        for path, library in ((chosen, "libcudart"), (nccl, "libnccl")):
            row = got[str(path)]
            # The copies here are in tmp_path: where a framework here predicts a copy, it is another file.
            assert row["library"] == library and row["verdict"] == ("differs" if row["predicted"] else "not-predicted")
        # snapshot --pid records the maps, and memory --pid --replay reads the same libraries back from it.
        snap = tmp_path / "snap.json"
        out = subprocess.run(
            [sys.executable, "-m", "gpudoctor", "snapshot", "--pid", str(proc.pid), "-o", str(snap)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert out.returncode == 0, out.stderr
        assert str(chosen) in json.loads(snap.read_text(encoding="utf-8"))["files"][f"/proc/{proc.pid}/maps"]
        out = subprocess.run(
            [sys.executable, "-m", "gpudoctor", "memory", "--replay", str(snap), "--pid", str(proc.pid), "--format", "json"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        replayed = {r["path"]: (r["library"], r["verdict"]) for r in json.loads(out.stdout)["process"]["libraries"]}
        assert replayed == {path: (row["library"], row["verdict"]) for path, row in got.items()}
    finally:
        proc.communicate("", timeout=10)
    gone = probe_process(LiveHost(), proc.pid, None)
    assert gone == ProcessFacts(proc.pid, error=f"no process {proc.pid} is running")
    out = subprocess.run(
        [sys.executable, "-m", "gpudoctor", "memory", "--pid", str(proc.pid), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert json.loads(out.stdout)["process"] == {"pid": proc.pid, "error": gone.error, "libraries": []}


NAMES_SEEN_IN_REPORTS = (
    "_ZN3c104cuda9SetDeviceEi",
    "_ZN3c105ErrorC2ENS_14SourceLocationENSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE",
    "_ZNK3c107SymBool10guard_boolEPKcl",
    "_ZN2at4_ops15to_dtype_layout4callERKNS_6TensorEN3c108optionalINS5_10ScalarTypeEEENS6_INS5_6LayoutEEENS6_INS5_6DeviceEEENS6_IbEEbbNS6_INS5_12MemoryFormatEEE",
)


@pytest.mark.skipif(shutil.which("c++filt") is None, reason="no c++filt to compare the small demangler with")
@pytest.mark.parametrize("name", NAMES_SEEN_IN_REPORTS)
def test_small_demangler_agrees_with_cxxfilt_on_the_qualified_name(name):
    full = subprocess.run(["c++filt", name], capture_output=True, text=True, timeout=10, check=True).stdout.strip()
    assert symbols.demangle(name).split("(")[0] == full.split("(")[0]


def _facts_with(extensions):
    """A recorded machine's facts with other companions: the checks judge only facts, so the rest is real."""
    import dataclasses

    from gpudoctor.host.replay import ReplayHost
    from gpudoctor.host.snapshot import load_snapshot
    from gpudoctor.probes import run_probes

    machine = Path(__file__).resolve().parents[1] / "machines/rtx4090-torch231-companions-healthy/snapshot.json"
    facts = run_probes(ReplayHost(load_snapshot(str(machine))))
    return dataclasses.replace(facts, extensions=extensions)


def test_flash_attn_tag_names_torch_minor_abi_and_cuda_major():
    from gpudoctor.checks import Context
    from gpudoctor.checks.extensions import check_companions
    from gpudoctor.extension_facts import Companion, ExtensionFacts

    fa = Companion("flash-attn", "2.5.8+cu118torch2.2cxx11abiTRUE", "/s", ("torch", "einops"))
    ext = ExtensionFacts("2.3.1+cu121", "12.1", False, ("libc10.so",), (), (fa,))
    (finding,) = check_companions(_facts_with(ext), Context())
    assert finding.code == "companion-torch-mismatch"
    assert "tagged for torch 2.2" in finding.detail and "cxx11abiTRUE" in finding.detail and "CUDA 11" in finding.detail
    assert finding.remediation is not None and finding.remediation.commands[-1].argv[-1] == "flash-attn==2.6.3"


def test_torch_pins_triton_and_the_fix_installs_that_pin():
    from gpudoctor.checks import Context
    from gpudoctor.checks.extensions import check_companions
    from gpudoctor.extension_facts import Companion, ExtensionFacts

    triton = Companion("triton", "3.0.0", "/s")
    ext = ExtensionFacts("2.3.1+cu121", "12.1", None, (), ('triton==2.3.1; platform_system == "Linux"',), (triton,))
    (finding,) = check_companions(_facts_with(ext), Context())
    assert "requires triton==2.3.1" in finding.detail
    assert finding.remediation is not None and finding.remediation.commands[-1].argv[-1] == "triton==2.3.1"


def test_an_extension_linking_another_cuda_major_than_torch_is_a_mismatch():
    from gpudoctor.checks import Context
    from gpudoctor.checks.extensions import check_companions
    from gpudoctor.extension_facts import Companion, ExtensionFacts, ExtensionObject

    def facts(needed, name="flash-attn", files=("flash_attn_2_cuda.so",)):
        objs = tuple(ExtensionObject(f"/s/{f}", needed_cuda=needed) for f in files)
        return ExtensionFacts("2.1.0+cu118", "11.8", None, (), (), (Companion(name, "2.5.7", "/s", (), None, objs),))

    (finding,) = check_companions(_facts_with(facts(("libcudart.so.12",))), Context())
    assert finding.code == "companion-torch-mismatch" and "libcudart.so.12 (CUDA 12)" in finding.detail
    assert finding.remediation is not None and finding.remediation.commands[-1].argv[-1] == "flash-attn==2.5.8"
    # The same major (torch's bundled, hashed copy included), a soname numbered on its own, and bitsandbytes, which
    # ships one binary per CUDA version and loads torch's: nothing.
    assert not list(check_companions(_facts_with(facts(("libcudart.so.11.0", "libcufft.so.10"))), Context()))
    assert not list(check_companions(_facts_with(facts(("libcudart-d0da41ae.so.11.0",))), Context()))
    bnb = ("libbitsandbytes_cuda118.so", "libbitsandbytes_cuda121.so")
    assert not list(check_companions(_facts_with(facts(("libcudart.so.12",), "bitsandbytes", bnb)), Context()))


def test_each_cuda_runtime_soname_alone_names_the_major_an_extension_was_built_with():
    # checks/extensions.py: "So is an extension that NEEDs the CUDA runtime (libcudart/libcublas) of another major than
    # torch's" - each of libcudart, libcublas and libcublasLt on its own, with or without a bundled copy's hash;
    # libraries that number their sonames on their own (libcufft.so.11 is CUDA 12's) decide nothing.
    from gpudoctor.checks import Context
    from gpudoctor.checks.extensions import check_companions
    from gpudoctor.extension_facts import Companion, ExtensionFacts, ExtensionObject

    def codes(needed):
        obj = ExtensionObject("/s/example_ext/_C.so", needed_cuda=needed)
        ext = ExtensionFacts("2.4.0+cu124", "12.4", None, (), (), (Companion("example-ext", "1.0", "/s", (), None, (obj,)),))
        return [f.code for f in check_companions(_facts_with(ext), Context())]

    for soname in ("libcudart.so.11.0", "libcublas.so.11", "libcublasLt.so.11", "libcublas-3b81d170.so.11"):
        assert codes((soname,)) == ["companion-torch-mismatch"], soname
    for soname in ("libcublas.so.12", "libcublasLt.so.12", "libcufft.so.11", "libcusparse.so.11"):
        assert codes((soname,)) == [], soname


def test_bitsandbytes_without_the_binary_for_torchs_cuda_is_a_mismatch():
    import dataclasses

    from gpudoctor.checks import Context
    from gpudoctor.checks.extensions import check_companions
    from gpudoctor.extension_facts import Companion, ExtensionFacts, ExtensionObject

    def facts(binaries, env=None, version="0.46.0"):
        objs = tuple(ExtensionObject(f"/s/bitsandbytes/{b}") for b in binaries)
        meta = f"/s/bitsandbytes-{version}.dist-info/METADATA"  # read from disk (a fresh wheel is judged by its release)
        ext = ExtensionFacts("2.8.0+cu129", "12.9", None, (), (), (Companion("bitsandbytes", version, "/s", (), meta, objs),))
        f = _facts_with(ext)
        return dataclasses.replace(f, platform=dataclasses.replace(f.platform, env=env or {})) if env else f

    (finding,) = check_companions(facts(["libbitsandbytes_cuda126.so", "libbitsandbytes_cuda128.so"]), Context())
    assert "no libbitsandbytes_cuda129.so" in finding.detail and "cuda126, cuda128" in finding.detail
    # the newest release that ships a library for CUDA 12.9 (0.50.1: a library of the same major stands in) and whose
    # wheels accept torch 2.8.0 (compat_matrix/libraries.toml, bitsandbytes)
    assert finding.remediation is not None and finding.remediation.commands[-1].argv[-2:] == (
        "install",
        "bitsandbytes==0.50.1",
    )
    # The binary for torch's CUDA, an older release's _nocublaslt name, or the one BNB_CUDA_VERSION asks for: nothing.
    assert not list(check_companions(facts(["libbitsandbytes_cuda129.so"]), Context()))
    assert not list(check_companions(facts(["libbitsandbytes_cuda129_nocublaslt.so"]), Context()))
    assert not list(check_companions(facts(["libbitsandbytes_cuda128.so"], {"BNB_CUDA_VERSION": "128"}), Context()))
    (none,) = check_companions(facts([]), Context())
    assert "no CUDA binary at all" in none.detail
    # From 0.50.0 another binary of torch's CUDA major stands in (not across majors, not under BNB_CUDA_VERSION).
    assert not list(check_companions(facts(["libbitsandbytes_cuda128.so"], version="0.50.0"), Context()))
    assert list(check_companions(facts(["libbitsandbytes_cuda118.so"], version="0.50.0"), Context()))
    assert list(check_companions(facts(["libbitsandbytes_cuda128.so"], {"BNB_CUDA_VERSION": "126"}, "0.50.0"), Context()))


def test_a_companion_built_from_its_source_tree_is_rebuilt_from_it_or_removed():
    from gpudoctor.checks import Context
    from gpudoctor.checks.extensions import check_symbols
    from gpudoctor.extension_facts import Companion, ExtensionFacts, ExtensionObject

    obj = ExtensionObject("/s/fused_layer_norm_cuda.so", unresolved=(SET_DEVICE_OLD,))
    ext = ExtensionFacts(
        "2.5.1+cu124", "12.4", False, ("libc10_cuda.so",), (), (Companion("apex", "0.1", "/s", (), None, (obj,)),)
    )
    (finding,) = check_symbols(_facts_with(ext), Context())
    rem = finding.remediation
    assert rem is not None and rem.alternative is not None
    install = rem.commands[-1].argv
    assert install[-1] == "apex @ git+https://github.com/NVIDIA/apex" and "--build-option=--cuda_ext" in install
    assert not any(a.startswith("apex==") for a in install)  # the package index's "apex" is another project
    assert rem.alternative.commands[0].argv[-3:] == ("uninstall", "-y", "apex")


def test_two_copies_of_one_library_in_a_process_are_both_named():
    from gpudoctor.checks.process import check_process
    from gpudoctor.extension_facts import MappedLibrary, ProcessFacts

    proc = ProcessFacts(
        7,
        (
            MappedLibrary("libcudart.so.12.1.105", "/env/lib/libcudart.so.12.1.105"),
            MappedLibrary("libcudart.so.12", "/opt/x/libcudart.so.12"),
        ),
        None,
        (("torch", "libcudart.so.12", "/env/lib/libcudart.so.12.1.105"),),
    )
    differs, mapped = check_process(SimpleNamespace(process=proc), None)  # type: ignore[arg-type]
    assert differs.code == "process-library-differs" and [e.value for e in differs.evidence][:1] == ["/opt/x/libcudart.so.12"]
    assert mapped.code == "process-libraries-mapped"


def test_memory_pid_lines_keep_each_path_whole_and_clean():
    """The renderer's own test (gpudoctor.memory.mapped): a path is one line's end, never wrapped, and a newline
    in a mapped path cannot forge a line of the view."""
    from gpudoctor.extension_facts import MappedLibrary, ProcessFacts
    from gpudoctor.memory.mapped import mapped_lines

    long = "/opt/" + "x" * 120 + "/libcudart.so.12"
    proc = ProcessFacts(
        9,
        (MappedLibrary("libcudart.so.12", long), MappedLibrary("libnccl.so.2", "/j/lib\nFAKE/libnccl.so.2")),
        None,
        (("torch", "libcudart.so.12", "/env/lib/libcudart.so.12"),),
    )
    lines = mapped_lines(proc)
    assert f"    mapped     {long}" in lines and "    predicted  /env/lib/libcudart.so.12 (torch)" in lines
    assert "  libcudart: differs from the prediction" in lines
    assert not any(line.startswith("FAKE") for line in lines) and len(lines) == 6
    assert mapped_lines(ProcessFacts(9, error="no process 9 is running")) == [
        "Process 9's libraries could not be read: no process 9 is running"
    ]


def test_symbol_budget_spent_reads_no_table_and_says_so():
    from gpudoctor.host.replay import ReplayHost
    from gpudoctor.host.snapshot import load_snapshot
    from gpudoctor.probes import run_probes
    from gpudoctor.probes.extensions import probe_extensions

    machine = Path(__file__).resolve().parents[1] / "machines/rtx4090-torch231-companions-healthy/snapshot.json"
    host = ReplayHost(load_snapshot(str(machine)))
    ext = probe_extensions(host, run_probes(host).frameworks, budget_s=0)
    assert ext is not None and ext.torch_libs == ()
    objects = [o for c in ext.companions for o in c.objects]
    assert objects and all(o.error == "ETIME" for o in objects)
    assert len(ext.unread) == len(objects) and all("budget is spent" in u for u in ext.unread)


@needs_cc
def test_real_wheel_tools_wrong_provider_defines_only_the_old_version(tmp_path):
    """tools/real_wheel.py (make verify-indexes) judges a real wheel against this stand-in: offline, its provider
    and the extension's extraction; the download and the judgement run there (network)."""
    import zipfile

    from gpudoctor.host.live import LiveHost
    from gpudoctor.probes.extensions import runtime_version
    from tools import real_wheel

    old = real_wheel.wrong_libstdcxx(tmp_path)
    assert "GLIBCXX_3.4" in read_symbols_file(str(old)).versions
    unread: list[str] = []
    assert runtime_version(LiveHost(), (str(old.parent),), "libstdc++.so.6", "GLIBCXX", unread) == ("3.4", str(old))
    wheel = tmp_path / "w-1.0-cp311-cp311-linux_x86_64.whl"
    with zipfile.ZipFile(wheel, "w") as z:
        z.writestr("w/_ext.so", b"\x7fELF")
        z.writestr("w-1.0.dist-info/METADATA", "Name: w\n")
    (tmp_path / "x").mkdir()
    assert real_wheel.extract_extension(wheel, tmp_path / "x") == tmp_path / "x" / "_ext.so"
