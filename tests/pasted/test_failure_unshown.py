"""Issues 28 and 31 (item 2): no clean bill for a failure the reporter shows or tells but nothing explains.

A paste can stop before the error line (the traceback cut), or carry only the reporter's words that the program fails
("it hangs", "black images", "I can't get cupy to work", "an error occurred" above a screenshot). Either is a failure
gpudoctor cannot explain: the report is a warning (pasted-error-unexplained) that names what was reported and that its
cause is not shown ("the paste ends before the error"), asserts no cause, and asks for what decides in the place the
program runs (the failing script run again, the container's or the pod's log, whether a GPU reaches it). Each shape on
real reports of the blind sets (cited by path) and public threads (URL beside the text); each with a quiet twin, a
report whose words must not read as the failure.
"""

from __future__ import annotations

import pytest

from gpudoctor.parsers.failure_lines import read_failure_lines
from tests.pasted import cli_json

ROOT = cli_json.ROOT
UNEXPLAINED = "pasted-error-unexplained"


_case, _check, _paste, _asked = cli_json.blind_case, cli_json.check, cli_json.paste, cli_json.asked


def _blocking(doc: dict) -> list[str]:
    return [f["code"] for f in doc["findings"] if f["severity"] in ("warning", "error", "critical")]


def _said(doc: dict) -> list[dict]:
    """The reporter's words read as a failure (failure_lines' said forms): their values."""
    return [
        dict(e["values"])
        for e in doc["facts"]["pasted"]["errors"]
        if e["kind"] == "gpu-stack-failure" and dict(e["values"]).get("component_kind") == "said"
    ]


def _form(lines: list[str]) -> str | None:
    """The form failure_lines reads in these lines, if any."""
    found = read_failure_lines(lines)
    return dict(found[0].values)["form"] if found else None


def _unexplained(doc: dict) -> dict:
    """The one blocking finding is the unexplained failure, a warning, that asserts no cause (no remediation)."""
    assert _blocking(doc) == [UNEXPLAINED]
    (finding,) = (f for f in doc["findings"] if f["code"] == UNEXPLAINED)
    assert finding["severity"] == "warning" and not finding.get("remediation")
    return finding


# -- the paste ends before the error: a traceback cut before its last line ------------------------------------------


def test_a_cut_traceback_beside_a_stated_version_is_still_a_failure():
    # pytorch/vision#9174: nvidia-smi's version line and pip's "Successfully uninstalled torch-2.8.0" (lines that
    # describe), then `import torchvision`'s traceback, cut inside a frame: the paste ends before the error
    doc = _check(_case("plans3/cases/219-vision9174"))
    (cut,) = (e for e in doc["facts"]["pasted"]["errors"] if e["kind"] == "traceback-cut")
    assert cut["line"] == 'File "/home/z/conda/envs/abj/lib/py'
    finding = _unexplained(doc)
    assert finding["detail"].startswith("The paste ends before the error")
    assert ["/home/z/conda/envs/abj/bin/python", "-m", "torch.utils.collect_env"] in _asked(doc)


def test_a_cut_traceback_of_the_reporters_script_asks_that_script_run_again():
    # NVIDIA/DALI#4034: "Now when I run the sample code again, I get this error:" and a traceback from
    # dali_vid_test.py that stops at "return self", inside a Triton server container
    doc = _check(_case("plans9/cases/914-dali4034"))
    (cut,) = (e for e in doc["facts"]["pasted"]["errors"] if e["kind"] == "traceback-cut")
    assert dict(cut["values"]) == {"script": "dali_vid_test.py"}
    assert cut["at"].endswith("/input.txt:27")  # the paste's line 27: the frame it stops at
    _unexplained(doc)
    asked = _asked(doc)
    assert ["python3", "dali_vid_test.py"] in asked  # where it ran (the container), its whole output
    assert ["nvidia-smi", "-L"] in asked  # whether that container sees the GPU


def test_cut_public_thread():
    # a JAX report (tests/blind/plans7/cases/620-*, its thread named there only): a REPL's traceback cut inside its
    # second frame: read as cut, with no script to run again (the first frame is <stdin>)
    doc = _check(_case("plans7/cases/620-jax25718"))
    (cut,) = (e for e in doc["facts"]["pasted"]["errors"] if e["kind"] == "traceback-cut")
    assert not cut["values"]


def test_cut_quiet_twin_a_whole_traceback():
    # thuml/Time-Series-Library#10 (a control): its traceback ends in its error line, RuntimeError: No CUDA GPUs are
    # available: nothing is cut
    doc = _check(_case("plans4/cases/344-tslib10"))
    assert "traceback-cut" not in [e["kind"] for e in doc["facts"]["pasted"]["errors"]]


# -- "it hangs": the reporter's words, nothing printed -------------------------------------------------------------


def test_a_hang_told_in_words_is_named_and_jax_is_asked():
    # jax-ml/jax#27535: "The call jax.devices() does not return anything and seems to time out after a few minutes."
    doc = _check(_case("pasted/cases/021-jax-27535"))
    assert _said(doc) == [{"form": "hang-said", "component": "jax", "component_kind": "said", "subject": "device"}]
    finding = _unexplained(doc)
    assert finding["title"].endswith("the reporter says jax hangs")
    assert ["python3", "-c", "import jax; jax.print_environment_info()"] in _asked(doc)
    assert ["nvidia-smi"] in _asked(doc)


def test_a_multi_gpu_freeze_told_in_words():
    # NVIDIA/nccl#631: 'the model "freeze"(stuck) when using 4 or more GPUs'
    doc = _check(_case("plans7/cases/609-nccl631"))
    assert [s["form"] for s in _said(doc)] == ["hang-said"]
    _unexplained(doc)


def test_hang_public_thread(tmp_path):
    # https://github.com/CompVis/taming-transformers/issues/12 (its first line as posted): what works set against
    # what hangs
    doc = _paste(
        tmp_path,
        "Hmm, training with `--gpus 0,` works fine but training with `--gpus 0,1` hangs right at `initializing ddp ...`\n",
    )
    assert [s["form"] for s in _said(doc)] == ["hang-said"]
    # DDP's start on two GPUs of one machine: a job over NCCL that waits (gpudoctor.checks.symptoms: nccl-hang), so
    # the links between the GPUs are asked (tests/pasted/test_nccl_hang.py), not the driver the ranks reached
    assert ["nvidia-smi", "topo", "-m"] in _asked(doc)
    _unexplained(doc)


def test_hang_quiet_twins():
    # pytorch/pytorch#51344 (a control): "hangs" and "freezes" only inside the addresses of the posts it links
    assert UNEXPLAINED not in _blocking(_check(_case("plans9/cases/918-pt51344")))
    # pytorch/pytorch#159742 (a control): the source line a warning prints, warnings.warn("Attempted to get default
    # timeout for nccl backend ...")
    doc = _check(_case("plans10/cases/1010-pt159742"))
    assert _said(doc) == [] and UNEXPLAINED not in _blocking(doc)


# -- NaN or black images ------------------------------------------------------------------------------------------


def test_nan_public_thread(tmp_path):
    # https://github.com/huggingface/diffusers/issues/1556 (its description's line as posted)
    doc = _paste(
        tmp_path,
        "But both of the methods (GPU) gives me a black image in return. However when I use the CPU mode "
        '`pipe.to("cpu")`, I get the results as expected.\n',
    )
    assert [s["form"] for s in _said(doc)] == ["nan-said"]
    _unexplained(doc)


def test_nans_printed_by_the_program_on_a_video_card_are_read_as_its_line():
    # AUTOMATIC1111/stable-diffusion-webui#10154: "NansException: A tensor with all NaNs was produced in Unet. ... your
    # video card does not support half type": the program's own line, naming the GPU as a video card
    doc = _check(_case("plans10/cases/1037-a1111-10154"))
    (e,) = (e for e in doc["facts"]["pasted"]["errors"] if e["kind"] == "gpu-stack-failure")
    assert dict(e["values"])["form"] == "exception"
    _unexplained(doc)


def test_nan_quiet_twin_an_option_named_nan():
    # https://github.com/AUTOMATIC1111/stable-diffusion-webui/issues/13722: the launch line's --disable-nan-check (and
    # --skip-torch-cuda-test) is an option, no NaN produced
    line = (
        "Launching Web UI with arguments: --xformers --medvram --autolaunch --no-half-vae --no-half --precision full "
        "--lowvram --always-batch-cond-uncond --upcast-sampling --api --listen --disable-nan-check --skip-torch-cuda-test"
    )
    assert _form([line]) is None


# -- "I cannot get it to work": a failure told, its output not shown ----------------------------------------------


def test_a_failure_told_in_words_names_the_framework_and_asks_it():
    # cupy/cupy#1057: "I can't get cupy to work with cuda 9.1."
    doc = _check(_case("plans9/cases/905-cupy1057"))
    assert _said(doc) == [{"form": "fails-said", "component": "cupy", "component_kind": "said", "subject": "device"}]
    _unexplained(doc)
    assert ["python3", "-c", "import cupy; cupy.show_config()"] in _asked(doc)


def test_fails_public_thread(tmp_path):
    # https://github.com/tensorflow/tensorflow/issues/63362 (its title as posted)
    doc = _paste(tmp_path, "TF 2.17.0 RC0 Fails to work with GPUs (and TF 2.16 too)\n")
    assert [s["form"] for s in _said(doc)] == ["fails-said"]
    _unexplained(doc)
    assert ["nvidia-smi"] in _asked(doc)


def test_fails_quiet_twin_a_programs_own_warning():
    # openai/whisper via StoryToolkitAI#79 (a control): "UserWarning: Failed to launch Triton kernels, likely due to
    # missing CUDA toolkit; falling back to a slower median kernel implementation": the program's line, which goes on
    doc = _check(_case("plans10/cases/1050-storytoolkitai79"))
    assert _said(doc) == [] and UNEXPLAINED not in _blocking(doc)


# -- "it reports an error": told, not shown ------------------------------------------------------------------------


def test_an_error_told_above_a_traceback_cut_before_the_next_comment_reads_the_cut():
    # cupy/cupy#9106: "I am trying to get cupy running on a RTX 5080, but it is reporting some errors.", then
    # contraction.py's traceback cut mid-frame ('File "cupy/_core/_ke') and the thread's next comment: the paste shows
    # more than the words, a traceback cut before its error, whose script run again prints it
    doc = _check(_case("plans8/cases/809-cupy9106"))
    (cut,) = (e for e in doc["facts"]["pasted"]["errors"] if e["kind"] == "traceback-cut")
    assert cut["line"] == 'File "cupy/_core/_ke'
    _unexplained(doc)
    assert ["/home/paul/miniconda3/envs/crypto/bin/python", "/home/paul/Code/github/cupy/examples/cutensor/contraction.py"] in (
        _asked(doc)
    )


def test_error_public_thread(tmp_path):
    # https://github.com/pytorch/pytorch/issues/27738 (a comment as posted)
    doc = _paste(tmp_path, "I still see that error, although i have cuda 10.1 and nvcc -V shows that i have cuda 10.1\n")
    assert [s["form"] for s in _said(doc)] == ["error-said"]
    _unexplained(doc)


@pytest.mark.parametrize(
    "case",
    [
        # "but I get the following error message:", and the message on the next line: the paste shows it
        "plans6/cases/549-dorado812",
        # "I am getting this error when importing tensorflow. I don't have gpu.": TensorFlow's start-up line on a machine
        # without one
        "plans3/cases/225-tf43361",
    ],
)
def test_error_quiet_twins(case):
    doc = _check(_case(case))
    assert _said(doc) == [] and UNEXPLAINED not in _blocking(doc)


# -- the error only in a picture ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "case",
    [
        "plans3/cases/205-pt99138",  # "### 🐛 Describe the bug", then a screenshot
        "plans10/cases/1045-ollama3074",  # "an error occurred related to the data information.", then a screenshot
        "plans8/cases/811-trt3489",  # "this happens:", then a screenshot
    ],
)
def test_an_error_shown_only_as_a_picture(case):
    doc = _check(_case(case))
    assert [s["form"] for s in _said(doc)] == ["error-in-picture"]
    finding = _unexplained(doc)
    assert "The failing command's own output is not in the paste" in finding["detail"]


def test_picture_public_thread(tmp_path):
    # https://github.com/1adrianb/face-alignment/issues/113 (its description as posted)
    doc = _paste(
        tmp_path,
        "@1adrianb My environment is Pytorch 0.4.0 and I installed enable cuda env.\n"
        "![image](https://user-images.githubusercontent.com/37186266/48750853-4b87d500-ecbc-11e8-9b03-834edd00a230.png)\n\n"
        "When I modified the parameter，the error is following\n"
        "![image](https://user-images.githubusercontent.com/37186266/48750928-af120280-ecbc-11e8-91bd-59e726222f5e.png)\n",
    )
    assert [s["form"] for s in _said(doc)] == ["error-in-picture"]
    _unexplained(doc)


@pytest.mark.parametrize(
    "case",
    [
        # "when gpu 0 has not enough memory, error is produced." above a screenshot: the program's own fault
        "plans3/cases/222-lightning1702",
        # a screenshot captioned "error" alone: a warning the reporter asks about
        "plans5/cases/443-giga22",
    ],
)
def test_picture_quiet_twins(case):
    doc = _check(_case(case))
    assert _said(doc) == [] and UNEXPLAINED not in _blocking(doc)


# -- the GPU not reached, in more of the reporter's words (checks.symptoms' gpu-not-reached) -------------------------


@pytest.mark.parametrize(
    ("case", "asked"),
    [
        ("plans6/cases/538-ollama2034", ["printenv", "CUDA_VISIBLE_DEVICES"]),  # "it will not use gpu"
        # (plans7/cases/636-wsl7056 left this list at h291: its stated Windows build, 19042, explains it, wsl-windows-too-old)
        (
            "plans9/cases/949-pinokio1027",
            ["python3", "-m", "torch.utils.collect_env"],
        ),  # "unable to get PyTorch to recognize the CUDA cores"
    ],
)
def test_gpu_not_reached_in_more_words(case, asked):
    doc = _check(_case(case))
    assert "gpu-unused-said" in [e["kind"] for e in doc["facts"]["pasted"]["errors"]]
    _unexplained(doc)
    assert asked in _asked(doc)


@pytest.mark.parametrize(
    "text",
    [
        # https://stackoverflow.com/questions/60987997 (its title, as VoxelCubes/PanelCleaner#22 links it)
        "Why torch.cuda.is_available() returns False even after installing pytorch with cuda?\n",
        # https://github.com/VoxelCubes/PanelCleaner/issues/22 (its description as posted)
        "I have the newest cuda installed 12.2. My gpu is supported. But seem like I can't run on cuda. Please help me.\n",
    ],
)
def test_gpu_not_reached_public_threads(tmp_path, text):
    doc = _paste(tmp_path, text)
    assert "gpu-unused-said" in [e["kind"] for e in doc["facts"]["pasted"]["errors"]]
    _unexplained(doc)


@pytest.mark.parametrize(
    "case",
    [
        "plans4/cases/321-pl2837",  # "self.on_gpu = True if (gpus and torch.cuda.is_available()) else False": code
        "pasted/cases/001-pytorch-40682",  # "always return false?" beside collect_env's "Is CUDA available: Yes"
    ],
)
def test_gpu_not_reached_quiet_twins(case):
    assert UNEXPLAINED not in _blocking(_check(_case(case)))


# -- a GPU's counter stuck at a value, a question whether it is a bug: no failure told ---------------------------------


@pytest.mark.parametrize(
    "line",
    [
        # tests/blind/plans13/cases/1349-* (a control: NVML under WSL 2 reports no utilisation)
        "when running WSL2 with nvtop, gpu usage is stuck at 0, despite showing accurate video ram usage, and reporting "
        "other gpu info correctly (model, freq, temp etc)",
        # https://github.com/redbeard1083/bc250-toolkit/issues/12 (its description's sentence, as posted)
        "Seems that after the 8 Core CPU unlock something happened that now the GPU usage is always stuck on 0%.",
    ],
)
def test_a_gpu_counter_stuck_at_a_value_is_no_hang(line):
    assert _form([line]) is None


def test_quiet_twin_a_progress_stuck_at_a_value_is_still_a_hang():
    # the same words of a program's progress ("training stuck at 0%"): it never ends, the hang form reads it
    assert _form(["The GPU training is stuck at 0% and never finishes."]) == "hang-said"


def test_the_wsl_counter_report_is_a_clean_bill():
    doc = _check(_case("plans13/cases/1349-"))
    assert _said(doc) == [] and _blocking(doc) == []


@pytest.mark.parametrize(
    "case",
    [
        # "So is this a bug to load all the models as once internally? Since my gpu memory is quite large, ..." above a
        # screenshot of nvidia-smi (a control: TensorFlow maps most of the GPU's memory when it first creates it)
        "plans13/cases/1354-",
        # "Is this the intended behavior? Or is it a bug?" (a control)
        "plans12/cases/1247-",
    ],
)
def test_a_question_whether_it_is_a_bug_tells_no_failure(case):
    doc = _check(_case(case))
    assert _said(doc) == [] and UNEXPLAINED not in _blocking(doc)


def test_quiet_twin_a_bug_told_above_a_picture_is_still_read(tmp_path):
    # the question's words turned into a statement above the same picture: the error is only in the picture
    doc = _paste(
        tmp_path,
        "I think this is a bug in the GPU loading of the models, see the error below.\n"
        "![image](https://user-images.githubusercontent.com/1/2.png)\n",
    )
    assert [s["form"] for s in _said(doc)] == ["error-in-picture"]


# -- h196: more of the reporter's words that it fails, headed NOT DECIDED, asked by what the line is about -------------


def test_a_library_that_fails_to_load_told_in_words_asks_where_its_copies_are():
    # cupy/cupy#9127: "When installing using conda cupy fails to load the `cudart64_12.dll` for the local installed
    # runtime version." (line 3), on Windows: the DLL named decides the ask, which folders on PATH hold it
    doc = _check(_case("plans12/cases/1214-cupy9127"))
    assert _said(doc) == [
        {
            "form": "fails-said",
            "component": "cupy",
            "component_kind": "said",
            "subject": "library",
            "library": "cudart64_12.dll",
        }
    ]
    finding = _unexplained(doc)
    assert finding["title"].startswith("NOT DECIDED: ")
    assert "input.txt:3)" in finding["detail"]  # the line read, where it is in the paste
    assert ["where.exe", "cudart64_12.dll"] in _asked(doc)


def test_never_works_told_in_words():
    # ggml-org/llama.cpp#4680: "However, when the b1697 introduces the cuda vmm, it never works."
    doc = _check(_case("plans10/cases/1049-llamacpp4680"))
    assert [s["form"] for s in _said(doc)] == ["fails-said"]
    _unexplained(doc)


def test_a_failure_told_of_a_geforce_named_by_its_series():
    # NVIDIA/TensorRT#3225: "before when i use rtx3080 to get engine, it was sucessful, but now rtx4070, it failed...."
    doc = _check(_case("plans13/cases/1322-trt3225"))
    assert [s["form"] for s in _said(doc)] == ["fails-said"]
    _unexplained(doc)


def test_the_cpu_instead_of_the_gpu_in_a_container_asks_inside_it():
    # mudler/LocalAI#1108: "LocalAI using CPU instead of GPU." with its docker compose file: the GPU not reached
    # (checks.symptoms), asked where the program runs, its container
    doc = _check(_case("plans13/cases/1345-localai-1108"))
    assert [(s["form"], s["subject"]) for s in _said(doc)] == [("cpu-said", "device")]
    _unexplained(doc)
    assert ["nvidia-smi", "-L"] in _asked(doc)


@pytest.mark.parametrize(
    "case",
    [
        # "it seems that the gpu doesn't work" read off nvidia-smi's 0% with the memory full: a guess, the control's
        # data loader the cause (NVIDIA/NeMo#1204, a control)
        "plans3/cases/203-nemo1204",
        # "why only 42/81 layers are offloaded to GPU, and ollama is still using CPU?": a model partly offloaded, its
        # other layers on the CPU as designed (ollama/ollama#6008, a control)
        "plans9/cases/945-ollama6008",
    ],
)
def test_more_words_quiet_twins(case):
    doc = _check(_case(case))
    assert _said(doc) == [] and UNEXPLAINED not in _blocking(doc)


@pytest.mark.parametrize(
    ("line", "form"),
    [
        ("When installing using conda cupy fails to load the `cudart64_12.dll`", "fails-said"),
        ("LocalAI using CPU instead of GPU. CUDA remains 0%", "cpu-said"),
        ("all fails to detect gpu and fallback to cpu", "fails-said"),
        ("it seems that the gpu doesn't work", None),
        ("ollama is still using CPU? Is there a way to force ollama to use GPU?", None),
    ],
)
def test_more_words_forms(line, form):
    assert _form([line]) == form


def test_an_install_told_as_failing_asks_which_pip_and_interpreter_ran_it():
    # AUTOMATIC1111/stable-diffusion-webui#16822: "Upgraded to a 5090, And got this error, following the link and
    # downloading using the pip c[ommand]": an install, in the package's own embedded Python, told and not shown
    doc = _check(_case("plans4/cases/332-a1111-16822"))
    assert [(s["form"], s["subject"]) for s in _said(doc)] == [("error-said", "install")]
    _unexplained(doc)
    asked = [a for a in _asked(doc) if a[1:] == ["-m", "pip", "--version"]]
    assert [a[0] for a in asked] == ["C:\\Users\\andy9\\Downloads\\sd.webui\\system\\python\\python.exe"]


def test_install_ask_quiet_twin_a_cause_decided():
    # google/trax#302 (tests/pasted/cases): a said reading about an install ("$ pip freeze | grep jax" beside the
    # words), but the cause is decided (framework-cpu-build): the asks that decide an unexplained failure are not asked
    doc = _check(ROOT / "tests/pasted/cases/trax-302-ubuntu-pypi-jaxlib-0139-cpu-only-no-gpu/report.txt")
    assert [s["subject"] for s in _said(doc)] == ["install"]
    assert "framework-cpu-build" in _blocking(doc) and UNEXPLAINED not in _blocking(doc)
    assert not [a for a in _asked(doc) if a[1:] == ["-m", "pip", "--version"]]


@pytest.mark.parametrize(
    ("case", "component"),
    [
        # tensorflow/tensorflow#59413: "Both command 4 and 5 with error no finding CUDA 12 libraries even though the
        # LD_LIBRARY_PATH is set correctly."
        ("plans7/cases/602-tf59413", "the program"),
        # tensorflow/tensorflow#63109: "Facing this error message when trying to use tensorflow on WSL2 Ubuntu - ..."
        # (TensorFlow's start-up lines on the same line, which are no failure themselves: the GPU is not shown)
        ("plans8/cases/814-tf63109", "tensorflow"),
        # tensorflow/tensorflow#58986: "The program runs when i am using only CPU but i get the CUDNN version mismatch
        # when trying to Run the program using GPU."
        ("plans12/cases/1209-tf58986", "the program"),
    ],
)
def test_an_error_told_with_more_verbs(case, component):
    doc = _check(_case(case))
    assert [(s["form"], s["component"]) for s in _said(doc)] == [("error-said", component)]
    _unexplained(doc)


def test_an_installers_error_line_quoted_for_example_is_read():
    # NVIDIA/nvidia-docker#1350: 'for example " ERROR: Unable to delete '/usr/lib/x86_64-linux-gnu/libnvidia-cfg.so.440.44'
    # (Device or resource busy). "' (NVIDIA's .run installer inside a container): "for example" is prose, not a for loop
    doc = _check(_case("plans13/cases/1308-nvdocker1350"))
    (e,) = doc["facts"]["pasted"]["errors"]
    assert e["kind"] == "gpu-stack-failure" and dict(e["values"])["form"] == "error-line"
    assert e["at"].endswith("/input.txt:8")
    _unexplained(doc)


def test_error_told_quiet_twin_an_error_shown_on_its_own_line():
    # huggingface/text-generation-inference#418 (a control): "I am encountering the following error: "NotImplementedError:
    # sharded is not supported for this model."": the error is shown, the program's own, and read as what it is
    doc = _check(_case("plans7/cases/647-tgi418"))
    assert _said(doc) == [] and UNEXPLAINED not in _blocking(doc)


@pytest.mark.parametrize(
    ("line", "form"),
    [
        ("ERROR: Unable to delete '/usr/lib/x86_64-linux-gnu/libnvidia-cfg.so.440.44' (Device or resource busy).", "error-line"),
        # a program's code that prints the words (a comparison on the line): nothing happened
        ('if (status != cudaSuccess) printf("ERROR: cudaMalloc failed\\n");', None),
        # a mismatch the program made (PyTorch's load_state_dict: "size mismatch for fc.weight"): its own fault
        ("I get the size mismatch for fc.weight when I load the checkpoint on cuda", None),
        ("but i get the CUDNN version mismatch when trying to Run the program using GPU.", "error-said"),
        # the words without the GPU stack: a program's own error line all the same (failure_lines' log-error, issues 28
        # and 31 item 2: pip stopped, and a report over it is no clean bill)
        ("ERROR: Could not open requirements file: [Errno 2] No such file or directory: 'requirements.txt'", "log-error"),
    ],
)
def test_error_line_forms(line, form):
    assert _form([line]) == form


def test_a_cut_traceback_pasted_without_its_header():
    # jax-ml/jax#15876: "*bug msg:" then jax's import frames, to 'File "...\\jax\\_src\\lib\\__init__.py", line 7', where the
    # paste ends: no "Traceback (most recent call last):" line, the same cut
    doc = _check(_case("plans12/cases/1212-jax15876"))
    (cut,) = (e for e in doc["facts"]["pasted"]["errors"] if e["kind"] == "traceback-cut")
    assert cut["line"].endswith('jax\\_src\\lib\\__init__.py", line 7') and cut["at"].endswith("/input.txt:19")
    assert _unexplained(doc)["title"].startswith("NOT DECIDED: ")


def test_headerless_cut_quiet_twin_indented_lines_that_are_no_frames():
    # dmlc/xgboost#6766 (a control): the paste ends in an indented parameter dict, no frame among them
    doc = _check(_case("plans5/cases/414-xgb6766"))
    assert "traceback-cut" not in [e["kind"] for e in doc["facts"]["pasted"]["errors"]]
    assert UNEXPLAINED not in _blocking(doc)


# -- onnxruntime's CPU provider named as the fallback (h260): the whole session on the CPU, asked by a session -------

_SESSION_ASK = (
    "import onnxruntime as ort; from onnxruntime.datasets import get_example; "
    's = ort.InferenceSession(get_example("sigmoid.onnx"), providers=["CUDAExecutionProvider", "CPUExecutionProvider"]); '
    "print(ort.__version__, s.get_providers())"
)


@pytest.mark.parametrize(
    "path",
    [
        # "always falling back to the CPUProvider" (insightface#1796)
        cli_json.blind_case("plans18/cases/1834-insightface"),
        # "always fall back to CPUExecutorProvider" (microsoft/onnxruntime#9302)
        ROOT / "tests/pasted/cases/onnxruntime-9302-debian-ort-gpu19-always-falls-back-to-cpu-provider-ask/report.txt",
    ],
)
def test_cpu_provider_fallback_said(path):
    doc = _check(path)
    assert "gpu-unused-said" in [e["kind"] for e in doc["facts"]["pasted"]["errors"]]
    _unexplained(doc)
    assert ["python3", "-c", _SESSION_ASK] in _asked(doc)


def test_cpu_provider_fallback_quoted_is_no_symptom():
    # openpilot#31708 on an Intel GPU: "ONNX automatically falls back to `CPUExecutionProvider`", the right behaviour
    doc = _check(ROOT / "tests/pasted/cases/openpilot-31708-intel-gpu-ort-gpu-falls-back-to-cpu-fine/report.txt")
    assert "gpu-unused-said" not in [e["kind"] for e in doc["facts"]["pasted"]["errors"]]
    assert UNEXPLAINED not in _blocking(doc)


# -- CUDA's "driver version is insufficient" on Windows with no NVIDIA GPU or driver shown (h260) -------------------

_ADAPTERS = [
    "powershell",
    "-NoProfile",
    "-Command",
    "Get-CimInstance Win32_VideoController | Format-List Name,DriverVersion,Status",
]


@pytest.mark.parametrize(
    "case",
    [
        "plans18/cases/1861-roop465",  # onnxruntime's CUDA provider: "CUDA failure 35", GPU and driver not named
        "plans3/cases/209-nvdocker498",  # CUDA 8's bandwidthTest.exe: cudaErrorInsufficientDriver, nothing else shown
    ],
)
def test_insufficient_driver_on_windows_unshown_is_undecided(case):
    doc = _check(_case(case))
    codes = _blocking(doc)
    # no driver upgrade asserted: an old driver and no NVIDIA driver at all read the same there
    assert "toolkit-newer-than-driver" not in codes and "framework-driver-too-old" not in codes
    _unexplained(doc)
    asked = _asked(doc)
    assert ["nvidia-smi"] in asked and _ADAPTERS in asked


def test_insufficient_driver_with_driver_shown_stays_decided():
    # a driver and GPU shown (a Linux host's 470 with CTranslate2's CUDA 12 build): the judged finding stays
    doc = _check(_case("plans9/cases/936-ctranslate2-1842"))
    assert UNEXPLAINED not in _blocking(doc)
