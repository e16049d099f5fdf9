"""After-round h244 (plans17): the linker's "cannot find -lcurand" at an extension's build is the link side, planned
as the library's folder on LIBRARY_PATH (checks.catalogued.builds.check_link_cuda_libraries), not a loader failure.
Recorded pastes and real threads, expectations by hand; each rule with the near miss that must not fire."""

from __future__ import annotations

from tests.pasted.cli_json import blind_case, check, paste


def _prepends(doc: dict) -> list[tuple[str, list[str]]]:
    """(variable, the names its folder finder is asked for) of each PrependPath of the plan, one a variable it names
    (`also`: the same finder's one answer on more variables)."""
    return [
        (name, c["parts"][0]["output_of"][3:])
        for s in doc["plan"]["steps"]
        for c in s["commands"]
        if "prepend" in c and c["parts"] and "output_of" in c["parts"][0]
        for name in (c["prepend"], *c.get("also", ()))
    ]


def _lookups(doc: dict) -> list[list[str]]:
    """Every program a plan's step runs to find a value (output_of), as often as the plan runs it."""
    return [p["output_of"] for s in doc["plan"]["steps"] for c in s["commands"] for p in c.get("parts", ()) if "output_of" in p]


def _codes(doc: dict) -> list[str]:
    return [f["code"] for f in doc["findings"]]


def test_link_time_curand_goes_on_library_path_not_a_loader_fix():
    # tests/blind/plans17/cases/1722-*: DeepSpeed's cpu_adam JIT link "c++ ... -shared -lcurand -L<torch>/lib ..." and
    # "/usr/bin/ld: cannot find -lcurand": the folder that holds libcurand.so goes first on LIBRARY_PATH (for ld) and
    # LD_LIBRARY_PATH (for the module's load); no "install the CUDA libraries" asks.
    doc = check(blind_case("plans17/cases/1722"))
    assert _prepends(doc) == [("LIBRARY_PATH", ["libcurand.so"]), ("LD_LIBRARY_PATH", ["libcurand.so"])]
    # the folder is looked up once, its answer on both (it was printed twice, once for each variable)
    assert [argv[3:] for argv in _lookups(doc)] == [["libcurand.so"]]
    assert _codes(doc).count("framework-cuda-libs-missing") == 1  # the link's finding alone, no loader's beside it


def test_two_link_time_cuda_libraries_are_found_together(tmp_path):
    # deepspeedai/DeepSpeed#3929 (https://github.com/deepspeedai/DeepSpeed/issues/3929), its build log: cpu_adam
    # linked with -lcurand and -lcudart, both missing to ld.
    text = (
        "FAILED: cpu_adam.so \n"
        "c++ cpu_adam.o custom_cuda_kernel.cuda.o -shared -lcurand -L/home/xuchengjin/anaconda3/envs/test/lib/python3.9"
        "/site-packages/torch/lib -lc10 -lc10_cuda -ltorch_cpu -ltorch_cuda_cu -ltorch_cuda_cpp -ltorch -ltorch_python "
        "-L/home/xuchengjin/anaconda3/envs/test/lib64 -lcudart -o cpu_adam.so\n"
        "/usr/bin/ld: cannot find -lcurand\n"
        "/usr/bin/ld: cannot find -lcudart\n"
    )
    doc = paste(tmp_path, text)
    assert ("LIBRARY_PATH", ["libcurand.so", "libcudart.so"]) in _prepends(doc)
    assert ("LD_LIBRARY_PATH", ["libcurand.so", "libcudart.so"]) in _prepends(doc)
    assert [argv[3:] for argv in _lookups(doc)] == [["libcurand.so", "libcudart.so"]]


def test_a_run_time_curand_miss_stays_the_loaders(tmp_path):
    # The twin: the loader's "libcurand.so.10: cannot open shared object file" (a program run, not a link) is not
    # planned on LIBRARY_PATH.
    text = "OSError: libcurand.so.10: cannot open shared object file: No such file or directory\n"
    doc = paste(tmp_path, text)
    assert not [v for v, _ in _prepends(doc) if v == "LIBRARY_PATH"]
    assert "framework-cuda-libs-missing" in _codes(doc)


def test_a_link_time_miss_of_another_library_is_not_planned_as_cuda(tmp_path):
    # The twin: ld missing a library that is not CUDA's (-lpython3.9 at a build) gets no CUDA folder on LIBRARY_PATH.
    text = "/usr/bin/ld: cannot find -lpython3.9\ncollect2: error: ld returned 1 exit status\n"
    assert not _prepends(paste(tmp_path, text))


# onnxruntime-gpu's CUDA 12 build missing its CUDA 12 libraries (checks.libraries.check_onnxruntime_cuda12_libs):
# NVIDIA's CUDA 12 wheels in the program's Python and their lib folders on LD_LIBRARY_PATH, not read-only asks.
_ORT_CUBLASLT_12 = (
    "2025-02-20 10:00:00.000000000 [E:onnxruntime:Default, provider_bridge_ort.cc:1862 TryGetProviderInfo_CUDA] "
    "/onnxruntime_src/onnxruntime/core/session/provider_bridge_ort.cc:1539 onnxruntime::Provider& "
    "onnxruntime::ProviderLibrary::Get() [ONNXRuntimeError] : 1 : FAIL : Failed to load library "
    "libonnxruntime_providers_cuda.so with error: {soname}: cannot open shared object file: No such file or directory\n"
)


def _pip_installs(doc: dict) -> list[list[str]]:
    return [
        c["argv"]
        for s in doc["plan"]["steps"]
        for c in s["commands"]
        if "argv" in c and c["argv"][1:4] == ["-m", "pip", "install"]
    ]


def test_onnxruntime_cuda12_provider_missing_cublaslt_installs_the_cuda12_wheels():
    # tests/blind/plans17/cases/1742-*: rembg[gpu] in a venv, "libcublasLt.so.12: cannot open shared object file"
    doc = check(blind_case("plans17/cases/1742"))
    (install,) = _pip_installs(doc)
    assert install[4:] == [
        "nvidia-cuda-runtime-cu12",
        "nvidia-cublas-cu12",
        "nvidia-cufft-cu12",
        "nvidia-curand-cu12",
        "nvidia-cudnn-cu12==9.*",
    ]
    assert [v for v, _ in _prepends(doc)] == ["LD_LIBRARY_PATH"]


def test_onnxruntime_cuda12_provider_title_of_another_thread(tmp_path):
    # danielgatis/rembg#668 (https://github.com/danielgatis/rembg/issues/668), its title's message in onnxruntime's log
    doc = paste(tmp_path, _ORT_CUBLASLT_12.format(soname="libcublasLt.so.12"))
    assert "framework-cuda-libs-missing" in _codes(doc)
    assert _pip_installs(doc) and _pip_installs(doc)[0][4] == "nvidia-cuda-runtime-cu12"


def test_onnxruntime_cuda11_provider_is_not_given_cuda12_wheels(tmp_path):
    # The twin: the same log asking for libcublasLt.so.11 (microsoft/onnxruntime#21684's title): the CUDA 11 build,
    # check_onnxruntime_cuda11's case, never NVIDIA's CUDA 12 wheels beside it.
    doc = paste(tmp_path, _ORT_CUBLASLT_12.format(soname="libcublasLt.so.11"))
    assert not [a for a in _pip_installs(doc) if "nvidia-cuda-runtime-cu12" in a]


def test_a_java_programs_own_onnxruntime_gets_no_pip_wheels(tmp_path):
    # The twin: onnxruntime's Java API (ai.onnxruntime.OrtException, as in microsoft/onnxruntime#12540) asking for a
    # CUDA 12 library: the program carries its own onnxruntime, which pip's wheels do not reach.
    text = "ai.onnxruntime.OrtException: Error code - ORT_RUNTIME_EXCEPTION - message: " + _ORT_CUBLASLT_12.format(
        soname="libcublasLt.so.12"
    )
    assert not [a for a in _pip_installs(paste(tmp_path, text)) if "nvidia-cuda-runtime-cu12" in a]
