"""Issue 27: a companion's build is a fact of the text, never invented; an extension built only from its source tree is
built there again against the installed torch.

Class 1: a pasted package list with an untagged torchvision/torchaudio beside a tagged torch. Untagged in a paste may
be the index's default build, a conda package or a source build: the text states no build, so no companion mismatch is
read from the tag alone. A companion shown with another local tag, or a wheel pinning another torch, still fires.
Class 2: `undefined symbol` of torch's in the compiled object of an extension with no release wheel under its own name
(detectron2): the plan rebuilds it from its source tree, --no-build-isolation and --no-deps, on a tag the interpreter
can build (detectron2's default branch needs Python 3.7, v0.6 builds on 3.6).
"""

from __future__ import annotations

from gpudoctor.cmdline import render
from gpudoctor.planner.remedy import KEEP
from tests.spec.machine import argv_of, pasted_findings
from tests.spec.registry import FIRES, QUIET, states

_codes = pasted_findings
_argv = argv_of


@states("companion-torch-mismatch", QUIET)
def test_an_untagged_nightly_companion_beside_a_tagged_nightly_torch_is_no_mismatch():
    text = (
        "pip list | grep torch\n"
        "torch                  2.9.0.dev20250801+cu129\n"
        "torchvision            0.24.0.dev20250801\n"
        "torchaudio             2.8.0.dev20250801\n"
    )
    assert "companion-torch-mismatch" not in _codes(text)


@states("companion-torch-mismatch", QUIET)
def test_an_untagged_release_companion_in_a_pasted_list_states_no_build():
    # torch 1.8.0's own torchaudio, and torch 2.4.1's own torchvision: the pairs the companion table names.
    for torch, companion in (("1.8.0+cu101", "torchaudio                0.8.0"), ("2.4.1+cu118", "torchvision  0.19.1")):
        text = f"Ubuntu 22.04\npip list\ntorch                     {torch}\n{companion}\n"
        assert "companion-torch-mismatch" not in _codes(text), torch


@states("companion-torch-mismatch", FIRES)
def test_a_companion_with_another_shown_tag_still_fires():
    text = "pip list\ntorch                     1.8.0+cu101\ntorchvision               0.9.0+cu102\n"
    f = _codes(text)["companion-torch-mismatch"]
    assert "cu102" in f.detail and "cu101" in f.detail


@states("companion-torch-mismatch", FIRES)
def test_a_companion_of_another_torch_release_still_fires_untagged():
    # The companion table, not a tag, decides: torchvision 0.9.0 is torch 1.8.0's, not 1.10.0's.
    text = "pip list\ntorch                     1.10.0+cu113\ntorchvision               0.9.0\n"
    assert "companion-torch-mismatch" in _codes(text)


DETECTRON2 = (
    "{site}/detectron2/_C.cpython-{abi}-x86_64-linux-gnu.so: undefined symbol: {symbol}\n"
    "torch                     {torch}\n"
    "torchvision               {vision}\n"
)


@states("extension-symbol-missing", FIRES)
def test_detectron2_built_against_another_torch_is_rebuilt_from_source_on_a_tag_its_python_builds():
    text = DETECTRON2.format(
        site="/home/u/miniconda3/envs/d2/lib/python3.6/site-packages",
        abi="36m",
        symbol="_ZNK2at10TensorBase8data_ptrIfEEPT_v",
        torch="1.8.1+cu111",
        vision="0.9.1+cu111",
    )
    codes = _codes(text)
    f = codes["extension-symbol-missing"]
    assert "companion-torch-mismatch" not in codes
    assert _argv(f) == [
        (
            "/home/u/miniconda3/envs/d2/bin/python",
            "-m",
            "pip",
            "install",
            "-v",
            "--no-build-isolation",
            "--no-cache-dir",
            "--force-reinstall",
            "--no-deps",
            "detectron2 @ git+https://github.com/facebookresearch/detectron2.git@v0.6",
        )
    ]


@states("extension-symbol-missing", FIRES)
def test_detectron2_on_a_newer_python_builds_the_default_branch():
    text = DETECTRON2.format(
        site="/opt/venv/lib/python3.10/site-packages",
        abi="310",
        symbol="_ZN3c1017RegisterOperatorsD1Ev",
        torch="2.1.0+cu121",
        vision="0.16.0+cu121",
    )
    f = _codes(text)["extension-symbol-missing"]
    (argv,) = _argv(f)
    assert argv[0] == "/opt/venv/bin/python"
    assert argv[-1] == "detectron2 @ git+https://github.com/facebookresearch/detectron2.git"
    assert "--no-build-isolation" in argv and "--no-deps" in argv


@states("extension-symbol-missing", QUIET)
def test_detectron2_importing_without_an_undefined_symbol_is_quiet():
    text = (
        "Ubuntu 22.04\npip list\ntorch                     2.1.0+cu121\ntorchvision               0.16.0+cu121\n"
        "detectron2                0.6\n>>> from detectron2 import _C\n>>>\n"
    )
    assert "extension-symbol-missing" not in _codes(text)


# Class 3: a library of NVIDIA's pip wheels bound to another copy of its sibling: glibc names the sibling's version node.
def _shadow(obj: str, symbol: str, node: str) -> str:
    return f"OSError: {obj}: undefined symbol: {symbol}, version {node}\n"


@states("cuda-paths-disagree", FIRES)
def test_a_wheel_library_bound_to_another_copy_of_its_sibling_puts_the_wheel_directory_first():
    cases = (
        # a conda env's torch cu121 with a CUDA 11 cuDNN on LD_LIBRARY_PATH
        (
            "/opt/conda/envs/x/lib/python3.11/site-packages/torch/lib/../../nvidia/cudnn/lib/libcudnn_cnn_infer.so.8",
            "_ZN15TracebackLoggerC1EPKc",
            "libcudnn_ops_infer.so.8",
            "/opt/conda/envs/x/lib/python3.11/site-packages/nvidia/cudnn/lib",
            # kept for new shells by the environment's interpreter, in its activate.d
            ("/opt/conda/envs/x/bin/python", "conda"),
        ),
        # a venv's cuBLAS in a CUDA runtime image
        (
            "/app/.venv/lib/python3.9/site-packages/nvidia/cublas/lib/libcublas.so.11",
            "cublasLtGetStatusString",
            "libcublasLt.so.11",
            "/app/.venv/lib/python3.9/site-packages/nvidia/cublas/lib",
            ("/app/.venv/bin/python", "bashrc"),  # (a venv named by a path only: not known to be one)
        ),
        # cuSPARSE 12 with an older toolkit's nvJitLink first: the sibling is another wheel's (nvidia/nvjitlink), and
        # that directory goes first
        (
            "/usr/local/lib/python3.10/dist-packages/torch/lib/../../nvidia/cusparse/lib/libcusparse.so.12",
            "__nvJitLinkAddData_12_1",
            "libnvJitLink.so.12",
            "/usr/local/lib/python3.10/dist-packages/nvidia/nvjitlink/lib",
            ("python3", "bashrc"),
        ),
    )
    for obj, symbol, node, wheel_dir, (exe, place) in cases:
        f = _codes(_shadow(obj, symbol, node))["cuda-paths-disagree"]
        assert node in f.title
        step, keep = f.remediation.commands
        assert step.name == "LD_LIBRARY_PATH" and step.parts == (wheel_dir,), obj
        assert keep.argv == (exe, "-c", KEEP[place], render(step, "posix")), obj  # kept for new shells


@states("cuda-paths-disagree", QUIET)
def test_an_unversioned_or_symbol_set_versioned_undefined_symbol_is_no_shadowed_sibling():
    site = "/opt/venv/lib/python3.10/site-packages"
    for text in (
        # no version node: an extension built against another torch, not a sibling copy
        f"ImportError: {site}/nvidia/cudnn/lib/libcudnn_cnn_infer.so.8: undefined symbol: _ZN15TracebackLoggerC1EPKc\n",
        # a symbol set of the C++ runtime, not a library
        _shadow(
            f"{site}/nvidia/cudnn/lib/libcudnn_cnn_infer.so.8",
            "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEC1Ev",
            "GLIBCXX_3.4.21",
        ),
        # an object outside NVIDIA's wheels
        _shadow(f"{site}/xformers/_C.so", "cublasLtGetStatusString", "libcublasLt.so.11"),
    ):
        assert "cuda-paths-disagree" not in _codes(text), text


# Class 4: the ptxas Triton ships is older than the GPU: Triton is pointed at an installed toolkit's ptxas.
PTXAS = "ptxas fatal   : Value '{arch}' is not defined for option 'gpu-name'\n"


@states("toolkit-arch-unsupported", FIRES)
def test_tritons_bundled_ptxas_not_knowing_the_gpu_points_triton_at_the_toolkits_ptxas():
    for text in (
        # the wrapper Triton raises, the repro naming its own ptxas
        "triton.runtime.errors.PTXASError: PTXAS error: Internal Triton PTX codegen error\n`ptxas` stderr:\n"
        + PTXAS.format(arch="sm_121a")
        + "Repro command: /opt/venv/lib/python3.12/site-packages/triton/backends/nvidia/bin/ptxas -lineinfo -v "
        "--gpu-name=sm_121a /tmp/x.ptx -o /tmp/x.ptx.o\n",
        # an older Triton's RuntimeError, on a GPU newer than its ptxas (Ada's sm_89)
        "RuntimeError: Internal Triton PTX codegen error: \n" + PTXAS.format(arch="sm_89"),
    ):
        f = _codes(text)["toolkit-arch-unsupported"]
        assert [c.argv for c in f.remediation.commands if hasattr(c, "argv")] == [("/usr/local/cuda/bin/ptxas", "--version")]
        (env,) = [c for c in f.remediation.commands if hasattr(c, "value")]
        assert (env.name, env.value) == ("TRITON_PTXAS_PATH", "/usr/local/cuda/bin/ptxas")


@states("toolkit-arch-unsupported", QUIET)
def test_a_ptxas_message_without_triton_or_from_ptxas_blackwell_is_not_tritons_bundled_ptxas():
    for text in (
        "nvcc -arch=sm_89 kernel.cu\n" + PTXAS.format(arch="sm_89"),  # a toolkit's own nvcc: TRITON_PTXAS_PATH is no fix
        "PTXASError: PTXAS error: Internal Triton PTX codegen error\n`ptxas` stderr:\n"
        "ptxas-blackwell fatal   : Value 'sm_110a' is not defined for option 'gpu-name'\n",
    ):
        codes = _codes(text)
        assert "toolkit-arch-unsupported" not in codes or all(
            "TRITON_PTXAS_PATH" not in getattr(c, "name", "") for c in codes["toolkit-arch-unsupported"].remediation.commands
        ), text
