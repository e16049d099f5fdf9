"""Asks that follow the error (issue 28): a DLL Windows could not load asked where Windows looks for it; a typed
import whose traceback follows it is that package's import failing, so nothing asks by importing it; vLLM's form of
collect_env read, so its torch is not asked again; a conda listing asked of a virtual environment's interpreter
becomes that environment's own pip listing; a docker image the reporter says they use places the asks in its
container.

Each rule on whole recorded reports (tests/blind cases, cited by path), with a near miss that must stay quiet."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.doctor import diagnose
from gpudoctor.facts import IMPORT_FAILED
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.model import Severity
from gpudoctor.pasted import Source, read_pasted
from gpudoctor.pasted.ask import ask_for
from gpudoctor.probed import Found

_TESTS = Path(__file__).resolve().parent.parent


def _case(folder: str, prefix: str) -> str:
    (case,) = (_TESTS / "blind" / folder / "cases").glob(prefix + "-*")
    return (case / "input.txt").read_text("utf-8")


def _diagnose(text: str):
    report = diagnose(ReplayHost(validate_snapshot(read_pasted([Source("t", text)]), "t")))
    assert not report.internal_errors, report.internal_errors
    return report


def _asks(text: str) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    report = _diagnose(text)
    return [(tuple(map(str, a.command.argv)), tuple(a.command.pipe)) for a in ask_for(report.facts, report.findings)]


# --- a DLL Windows could not load ----------------------------------------------------------------------------------


def test_a_missing_toolkit_dll_is_asked_on_path_and_in_the_installed_toolkits():
    # plans4 312 (PaddlePaddle 2.2.1 post112: "cublas64_11.dll not found", error 126): whether any copy is on PATH and
    # whether a CUDA 11 toolkit holds one decide between installing it and putting its bin folder on PATH
    asks = _asks(_case("plans4", "312"))
    assert (("where.exe", "cublas64_11.dll"), ()) in asks
    root = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA"
    assert (("where.exe", "/R", root, "cublas64_11.dll"), ()) in asks


def test_a_dll_only_warned_of_on_a_machine_that_runs_is_not_asked():
    # tests/pasted/cases/lightweight-mmm-23: TensorFlow's dso_loader warns that cudart64_110.dll did not load and the
    # program runs on the CPU: no finding to decide, so no search of the installed toolkits for it (the loader's
    # warning alone is asked of PATH, once: pasted/ask._dso_loader_dlls, tests/pasted/head/platforms.toml)
    text = (_TESTS / "pasted/cases/lightweight-mmm-23-windows-cudart-warning-runs-fine/report.txt").read_text("utf-8")
    assert [argv for argv, _ in _asks(text) if argv[0] == "where.exe"] == [("where.exe", "cudart64_110.dll")]
    assert not [f for f in _diagnose(text).findings if f.severity >= Severity.WARNING]


# --- a typed import followed by its traceback ----------------------------------------------------------------------


def test_a_typed_import_whose_wrapped_traceback_follows_is_that_import_failing():
    # plans4 308: `>>> import cupy` (set in Markdown emphasis), then a traceback whose frames a mail client wrapped
    # (`File` alone, the path on the next line) ending in ImportError: libcudart.so.10.2. cupy's import failed, so
    # no ask imports cupy; its distributions are asked of the environment's pip instead
    text = _case("plans4", "308")
    report = _diagnose(text)
    assert "cupy" in {c["means"] for c in report.facts.pasted.cues if c["cue"] == IMPORT_FAILED}
    asks = _asks(text)
    assert not [argv for argv, _ in asks if any("import cupy" in w for w in argv)]
    assert (("/home/lab/python_envs/nt_env/bin/python", "-m", "pip", "list"), ("grep", "-i", "cupy")) in asks


def test_a_typed_import_that_succeeded_before_a_later_error_is_quiet():
    # plans4 318: `>>> import tensorflow` returns; the error comes from tf.Session later: the import did not fail
    report = _diagnose(_case("plans4", "318"))
    assert "tensorflow" not in {c["means"] for c in report.facts.pasted.cues if c["cue"] == IMPORT_FAILED}


def _cut(text: str) -> dict:
    (cut,) = _diagnose(text).facts.pasted.reported("traceback-cut")
    return dict(cut.values)


def test_a_cut_import_chain_is_run_again_by_importing_the_innermost_package():
    # plans20 2042 (hiyouga/LLaMA-Factory#8290): llamafactory-cli's frames, every one at module level, import peft and
    # the paste stops inside peft's modules: importing peft alone, by the traceback's interpreter, prints the error
    asks = _asks(_case("plans20", "2042"))
    assert _cut(_case("plans20", "2042")) == {"module": "peft"}
    assert (("/opt/conda/bin/python", "-c", "import peft"), ()) in asks


def test_a_cut_chain_inside_a_packages_module_names_that_module():
    # plans17 1719 (tensorflow/tensorflow#16622): the traceback an ImportError's message holds starts in tensorflow's
    # pywrap_tensorflow and is cut in the loader: the module it was importing, by its dotted name, is what fails again
    assert _cut(_case("plans17", "1719")) == {"module": "tensorflow.python.pywrap_tensorflow_internal"}


def test_a_module_run_as_the_program_is_no_import_to_run_again():
    # plans16 1649: pip's build hook (_in_process.py) is the traceback's first frame, run as a program: nothing to import
    assert "module" not in _cut(_case("plans16", "1649"))


# --- vLLM's collect_env --------------------------------------------------------------------------------------------


def test_vllms_collect_env_is_read_whole_and_its_torch_not_asked_again():
    # plans5 431: vLLM's collect_env (vllm/collect_env.py: sections ruled with "=" lines, keys padded to one column)
    text = _case("plans5", "431")
    torch = _diagnose(text).facts.frameworks.torch
    assert isinstance(torch, Found)
    assert (torch.value.version, torch.value.cuda, torch.value.build_known) == ("2.7.0+cu126", "12.6", True)
    asks = _asks(text)
    assert not [argv for argv, _ in asks if "torch.utils.collect_env" in argv]
    # (the GPU's name the paste cut is still asked)
    assert (("nvidia-smi", "--query-gpu=name,compute_cap,driver_version", "--format=csv"), ()) in asks


# --- conda asked of a virtual environment --------------------------------------------------------------------------


def test_a_virtual_environments_asks_are_its_own_and_never_condas():
    # plans8 825: cuDF and cuML in a uv virtual environment (its .venv/bin/python in the traceback): conda manages no
    # part of it. Its cuInit answer CUDA_ERROR_NO_DEVICE (100), read by number since h238 (gpudoctor.parsers.cuda_errors),
    # brings the no-device asks, which decide the case (the Linux driver packages inside WSL: dpkg's listing, the
    # maintainer's reading); RAPIDS' own listing, asked while nothing decided it (from the environment's pip, never
    # conda's), gives way to them. No ask runs conda, and the Python asks run the environment's interpreter.
    asks = _asks(_case("plans8", "825"))
    python = "/mnt/c/Users/Hongb/Documents/Git/hongbomiao.com/machine-learning/hm-cuml/.venv/bin/python"
    assert (("dpkg", "-l"), ("grep", "nvidia")) in asks
    assert ((python, "-c", "from numba import cuda; cuda.cudadrv.libs.test()"), ()) in asks
    assert not [argv for argv, _ in asks if argv[0] == "conda"]
    assert not [argv for argv, _ in asks if argv[0] in ("python", "python3")]


def test_a_conda_listing_without_a_virtual_environment_shown_is_kept():
    # plans7 623: the prompt's "(rapids)" environment and no virtual environment's interpreter: conda's listing stays
    asks = _asks(_case("plans7", "623"))
    assert (("conda", "list"), ("grep", "-E", "cudf|cuml|cugraph|rmm")) in asks


# --- the package listing of the environment whose package failed to load ----------------------------------------------


def test_a_venvs_package_whose_library_failed_is_listed_by_the_venvs_own_pip():
    # plans20 2002 (rapidsai/cudf#18613): pylibcudf in a project .venv cannot load libcudf.so; the pip list pasted beside
    # it is the system /usr/bin/pip's (no cudf in it), so it answers nothing: the venv's own pip lists what decides,
    # whether the libcudf wheel is there and of pylibcudf's release. conda is not asked (the paste says it is absent).
    asks = _asks(_case("plans20", "2002"))
    python = "/home/kelyn/git/neural-trader/.venv/bin/python"
    assert ((python, "-m", "pip", "list"), ("grep", "-iE", "cudf")) in asks
    assert not [argv for argv, _ in asks if argv[0] == "conda"]


def test_a_cuda_library_a_package_could_not_load_is_listed_with_nvidias_wheels():
    # plans18 1819 (bitsandbytes-foundation/bitsandbytes#1483): bitsandbytes' CUDA 11.8 binary needs libcusparse.so.11;
    # collect_env lists torch's lines only, so the listing of bitsandbytes and the cu11 library wheels is asked
    asks = _asks(_case("plans18", "1819"))
    assert (("python3", "-m", "pip", "list"), ("grep", "-iE", "bitsandbytes|cusparse|nvidia")) in asks


def test_a_conda_environments_package_is_listed_by_conda_for_its_prefix():
    # plans8 813 (microsoft/onnxruntime#8594): onnxruntime in the conda environment FXM fails on its libcublas: conda's
    # listing of that prefix (its cudatoolkit, and pip's installs as pypi) is asked, not pip's alone
    asks = _asks(_case("plans8", "813"))
    assert (
        ("conda", "list", "-p", "/home/gpu/anaconda3/envs/FXM"),
        ("grep", "-iE", "onnxruntime|cublas|nvidia"),
    ) in asks


def test_a_windows_provider_failure_is_listed_with_findstr_in_the_venv():
    # plans7 622 and plans4 310 (microsoft/onnxruntime#22000, #21825): the CUDA provider DLL failed with error 126 in a
    # venv on Windows: its own pip, filtered by findstr (cmd.exe and PowerShell have no grep)
    for folder, prefix, python in (
        ("plans7", "622", "C:\\Users\\koush\\Desktop\\work\\.venv\\Scripts\\python.exe"),
        ("plans4", "310", "c:\\Simon\\Timpi\\test\\myenv\\Scripts\\python.exe"),
    ):
        asks = _asks(_case(folder, prefix))
        assert ((python, "-m", "pip", "list"), ("findstr", "/i", "onnxruntime")) in asks


def test_only_the_drivers_library_failing_lists_no_package():
    # tests/pasted/cases/deepo-112: libcuda.so.1 missing in a container run without --gpus: the driver's library, which
    # no environment's package holds; the listing asked is the one for tensorflow's failing import alone
    text = (_TESTS / "pasted/cases/deepo-112-docker-run-without-gpus-tf-libcuda-so-1-missing/report.txt").read_text("utf-8")
    pipes = [pipe for argv, pipe in _asks(text) if "list" in argv]
    assert pipes == [("grep", "-i", "tensorflow")]


# --- a container the reporter says they use, by its image -----------------------------------------------------------


def _container(text: str) -> str | None:
    from gpudoctor.planner import where

    return where.container_said(_diagnose(text).facts)


def test_a_docker_image_the_reporter_uses_is_where_the_program_runs():
    # plans12 1207: "I am using a docker image generated from dustynv/jetson-inference:r32.7.1": the loader's and the
    # interpreter's asks are typed inside that container (the reviewer: they did not say host or container)
    text = _case("plans12", "1207")
    assert _container(text) == "docker"
    report = _diagnose(text)
    placed = {str(a.command.argv[0]): a.command.note for a in ask_for(report.facts, report.findings)}
    assert placed["ldconfig"] == placed["printenv"] == "inside the container"


def test_a_docker_image_only_built_in_is_quiet():
    # plans5 425: "I am building the required shared libraries from within the docker image, then running the
    # inference code from outside": the program runs on the host
    assert _container(_case("plans5", "425")) is None


def test_a_listings_filter_keeps_each_word_once_and_matches_either_separator():
    from gpudoctor.pasted.load_asks import listed_words, listing_filter

    # (a CUDA library by its family and NVIDIA's wheels; a package's own library by its stem, which "cudf" covers)
    assert listed_words(["pylibcudf"], ["libcudf.so", "libcudnn_ops_infer.so.8"]) == ["cudf", "cudnn", "nvidia"]
    assert listing_filter(["torch_tensorrt"], windows=False) == ("grep", "-iE", "torch.tensorrt")
    assert listing_filter(["torch_tensorrt", "nvidia"], windows=True) == ("findstr", "/i", "torch nvidia")


# --- a compiled program run from its own build tree, with no kernel image for the GPU --------------------------------


def test_a_self_built_programs_cmake_cache_and_toolkit_are_asked_where_it_ran():
    # plans18 1841 (CMU-Perceptual-Computing-Lab/openpose#2312): OpenPoseDemo.exe run from .\buildnewn at a PowerShell
    # prompt: the cache of that tree, from the prompt's folder, read with Select-String; and the nvcc a rebuild uses
    asks = _asks(_case("plans18", "1841"))
    cache = "C:\\Users\\DeepakKumar\\dd\\openpose\\buildnewn\\CMakeCache.txt"
    entries = "CUDA_ARCH|CUDA_TOOLKIT_ROOT_DIR|CUDA_NVCC_EXECUTABLE|CMAKE_CUDA_COMPILER"
    assert (("Select-String", "-Path", cache, "-Pattern", entries), ()) in asks
    assert (("nvcc", "--version"), ()) in asks
    # plans18 1840 (openpose-docker#3): ./build/examples/openpose/openpose.bin at the container's /openpose prompt
    asks = _asks(_case("plans18", "1840"))
    assert (("grep", "-E", entries, "/openpose/build/CMakeCache.txt"), ()) in asks


def test_a_prebuilt_programs_no_kernel_image_asks_for_no_build_tree():
    # plans20 2049 (gpustack/gpustack#1382): llama-box's own CI paths, no build tree the reporter ran: nothing to read
    assert not [argv for argv, _ in _asks(_case("plans20", "2049")) if "CMakeCache.txt" in " ".join(argv)]


def test_a_dotnet_programs_package_is_listed_by_nuget_unless_its_version_is_said():
    # plans20 2009 (microsoft/onnxruntime#20597): a .NET app's CUDA provider DLL fails with error 126 and its NuGet
    # package's version is not said: the project's own listing. plans6 518 (#20589) says "nuget package VERSION 1.16.0"
    asks = _asks(_case("plans20", "2009"))
    assert (("dotnet", "list", "package"), ("findstr", "/i", "onnxruntime")) in asks
    assert not [argv for argv, _ in _asks(_case("plans6", "518")) if argv[0] == "dotnet"]


def test_a_cut_tracebacks_first_frame_in_a_worker_is_no_script_to_run_again():
    # plans20 2034 (iperov/DeepFaceLive#13): the traceback starts in a worker's _start_proc in a library module of the
    # checkout (xlib\mp\csw\CSWBase.py): run alone it does nothing, so it is not asked
    assert not [argv for argv, _ in _asks(_case("plans20", "2034")) if any("CSWBase.py" in w for w in argv)]
    assert "script" not in _cut(_case("plans20", "2034"))
    # plans6 509 (pytorch/pytorch#54822): Hydra's trimmed traceback starts in the script's main(): still the program
    assert _cut(_case("plans6", "509")) == {"script": "/ghome/luoxin/projects/liif-lightning-hydra/run.py"}
