"""Library names and paths read from any line (gpudoctor.parsers.library_lines, branch h239), on recorded pastes with
expectations written by hand; then what two of those facts decide through the existing checks: the linker's
`cannot find -lcuda` puts the driver's folder on LIBRARY_PATH (checks.catalogued.builds), never a loader change; a
libcuda mapped from a toolkit's stubs folder is the stub finding (checks.catalogued.framework_builds)."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.cmdline import Output, PrependPath, SetFrom
from gpudoctor.parsers.library_lines import LINK, LOAD, major_of, read_library_lines, stub_libcuda_loaded
from tests.pasted.test_windows_loader_codes import _case, _run

EXAMPLES = Path(__file__).resolve().parent / "catalogue_examples"


def _facts(text: str) -> list[tuple]:
    return [(f.side, f.image, f.name, f.major, f.path, f.stub, f.home, f.toolkit, f.failed) for f in read_library_lines(text)]


def test_each_recorded_line_reads_as_its_library_side_path_and_home():
    # plans16/1602 (numba's libs.test(): the heading, then the CUDA 11.8 stub on the next line; then ctypes' probe)
    assert _facts(_case("plans16", "1602-")) == [
        (
            "load",
            "elf",
            "libcuda.so",
            "",
            "/usr/local/cuda-11.8/targets/x86_64-linux/lib/stubs/libcuda.so",
            True,
            "toolkit",
            "11.8",
            False,
        ),
        ("load", "elf", "libcuda.so", "", "/usr/lib/libcuda.so", False, "system", "", False),
    ]
    # plans16/1609: ld's -lcuda under Triton's frames: the link side, no path
    assert _facts(_case("plans16", "1609-")) == [("link", "elf", "libcuda.so", "", "", False, "", "", True)]
    # plans7/615: numba opening a CUDA 9.0 toolkit's libnvvm by its full path
    assert _facts(_case("plans7", "615-")) == [
        ("load", "elf", "libnvvm.so", "", "/usr/local/cuda-9.0/nvvm/lib64/libnvvm.so", False, "toolkit", "9.0", True)
    ]
    # plans8/804: ctypes on Windows, a DLL in a conda environment's site-packages
    [dll] = read_library_lines(_case("plans8", "804-"))
    assert (dll.image, dll.name, dll.home, dll.side, dll.failed) == (
        "dll",
        "libbitsandbytes_cuda116.dll",
        "python-packages",
        LOAD,
        True,
    )
    assert dll.path.endswith(r"\bitsandbytes\cuda_setup\libbitsandbytes_cuda116.dll")
    # plans4/310: onnxruntime's LoadLibrary 126, the provider DLL named by its path
    [provider] = read_library_lines(_case("plans4", "310-"))
    assert (provider.name, provider.image, provider.home) == ("onnxruntime_providers_cuda.dll", "dll", "python-packages")
    # plans3/216: TensorRT's "Unable to load library: libnvinfer_builder_resource.so.8.4.2"
    assert [(f.name, f.major) for f in read_library_lines(_case("plans3", "216-"))] == [
        ("libnvinfer_builder_resource.so.8.4.2", "8")
    ]
    # plans9/934: cuDNN's "Could not load library libcudnn_ops_infer.so.8." (the sentence's full stop is no part of it)
    assert [(f.name, f.major) for f in read_library_lines(_case("plans9", "934-"))] == [("libcudnn_ops_infer.so.8", "8")]
    # microsoft/WSL#5663: darknet's make under WSL 2
    text = (EXAMPLES / "wsl-5663-darknet-wsl2-make-ld-cannot-find-lcuda.txt").read_text()
    assert [(f.side, f.name) for f in read_library_lines(text)] == [(LINK, "libcuda.so")]


def test_a_cuda_dlls_suffix_is_its_major_or_its_major_and_minor_run_together():
    # CUDA 10.1's cudart64_101.dll (plans3/225), 9.2's cudart64_92.dll, 11.x's cudart64_110.dll; CUDA 12's cuBLAS
    # (plans6/534) and cuDNN 8's sublibraries (plans4/337) name the major alone
    assert [f.major for f in read_library_lines(_case("plans3", "225-"))] == ["10"]
    assert [f.major for f in read_library_lines(_case("plans6", "534-"))] == ["12"]
    assert [f.major for f in read_library_lines(_case("plans4", "337-"))] == ["8", "11"]
    assert [major_of(n) for n in ("cudart64_92.dll", "cudart64_110.dll", "libcudart.so.10.2", "zlibwapi.dll")] == [
        "9",
        "11",
        "10",
        "",
    ]


def test_quiet_twins_a_listing_a_line_number_a_port_and_another_programs_error_35_are_no_library_facts():
    quiet = (
        "$ find / -name 'libcuda.so*' 2>/dev/null\n"
        "/usr/local/cuda-11.8/targets/x86_64-linux/lib/stubs/libcuda.so\n"
        "/usr/lib/x86_64-linux-gnu/libcuda.so.1\n"
        "$ ls /usr/local/cuda/lib64/stubs\nlibcuda.so  libcublas.so  libnvidia-ml.so\n"
        "Finding driver from candidates:\n        libcuda.so\n        /usr/lib/libcuda.so\n"
        'File "train.py", line 35, in <module>\n'
        "curl: (7) Failed to connect to localhost port 8080: error 35\n"
        "I added -lcuda to LDFLAGS and it still says the same\n"
        "Downloading nvidia_cublas_cu12-12.1.3.1-py3-none-manylinux1_x86_64.whl (410.6 MB)\n"
    )
    assert read_library_lines(quiet) == ()
    # ld skipping a file of another architecture found it: a link-side fact, but no failure
    [skipped] = read_library_lines(
        "/usr/bin/ld: skipping incompatible /usr/lib/i386-linux-gnu/libcuda.so when searching for -lcuda"
    )
    assert (skipped.side, skipped.path, skipped.failed, skipped.home) == (
        LINK,
        "/usr/lib/i386-linux-gnu/libcuda.so",
        False,
        "system",
    )
    # a stub mapped is the stub loaded; the same file failing to open, or linked against, is not
    assert stub_libcuda_loaded(read_library_lines(_case("plans16", "1602-"))).stub
    assert (
        stub_libcuda_loaded(read_library_lines("/usr/local/cuda/lib64/stubs/libcuda.so: cannot open shared object file")) is None
    )
    assert stub_libcuda_loaded(read_library_lines(quiet)) is None


def test_the_linker_missing_libcuda_in_wsl_puts_wsls_folder_on_library_path_not_the_loaders():
    # microsoft/WSL#5663 (tests/pasted/catalogue_examples): darknet's make under WSL 2, "/usr/bin/ld: cannot find -lcuda"
    snapshot, codes, asks = _run((EXAMPLES / "wsl-5663-darknet-wsl2-make-ld-cannot-find-lcuda.txt").read_text())
    [missing] = [e for e in snapshot["pasted"]["errors"] if e["kind"] == "library-missing"]
    assert missing["values"] == {"soname": "libcuda.so", "side": "link"}
    steps = codes["framework-cuda-libs-missing"].remediation.commands
    paths = [s for s in steps if isinstance(s, PrependPath)]
    assert [(p.name, p.literal) for p in paths] == [("LIBRARY_PATH", "/usr/lib/wsl/lib")]
    assert not any(isinstance(s, SetFrom) or getattr(s, "name", "") == "LD_LIBRARY_PATH" for s in steps)
    assert "pasted-error-unexplained" not in codes


def test_the_linker_missing_libcuda_elsewhere_puts_the_drivers_folder_on_library_path_and_asks_library_path():
    # apache/mxnet#2656 (tests/pasted/catalogue_examples): make of libmxnet.so on Linux, no WSL shown
    snapshot, codes, asks = _run((EXAMPLES / "mxnet-2656-make-ld-cannot-find-lcuda.txt").read_text())
    steps = codes["framework-cuda-libs-missing"].remediation.commands
    [path] = [s for s in steps if isinstance(s, PrependPath)]
    assert path.name == "LIBRARY_PATH" and isinstance(path.parts[0], Output)
    assert ("printenv", "LIBRARY_PATH") in asks and ("printenv", "LD_LIBRARY_PATH") not in asks


def test_quiet_twins_the_loaders_libcuda_in_wsl_and_tritons_link_keep_their_own_plans():
    # plans8/824 (WSL 2, jax: "Could not load dynamic library 'libcuda.so.1'", then the stub): the loader's failure,
    # whose plan is WSL's folder on LD_LIBRARY_PATH (checks.catalogued.windows_wsl), never LIBRARY_PATH
    snapshot, codes, asks = _run(_case("plans8", "824-"))
    names = [getattr(s, "name", "") for f in codes.values() if f.remediation for s in f.remediation.commands]
    assert "LIBRARY_PATH" not in names
    # plans16/1609: ld's -lcuda under Triton's frames stays Triton's launcher link (sudo ldconfig), WSL not shown
    snapshot, codes, asks = _run(_case("plans16", "1609-"))
    finding = codes["framework-cuda-libs-missing"]
    assert finding.title.startswith("Triton cannot link its launcher")
    assert not any(isinstance(s, PrependPath) for s in finding.remediation.commands)
