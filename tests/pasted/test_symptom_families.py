"""Issues 27/28: a symptom whose causes the paste cannot decide is named with the causes still open, and asked about.

"The program does not reach the GPU" (the reporter's words, "No CUDA GPUs are available", is_available() False) has
different open causes, and different deciding commands, by where the program runs (gpudoctor.checks.symptoms): the
report is a warning (pasted-error-unexplained, never "No problems found", never one cause asserted) whose detail
names the causes, and the asks are that place's, in its form. Each place on real reports of the blind sets (cited by
path) and public threads (URL beside the text); each with a quiet twin, a fine report whose words must not read as
the symptom.
"""

from __future__ import annotations

import pytest

from gpudoctor.checks.symptoms import GPU_NOT_REACHED
from tests.hostile.test_corpus import run_cli
from tests.pasted import cli_json

ROOT = cli_json.ROOT
UNEXPLAINED = "pasted-error-unexplained"


_case, _check, _paste, _asked = cli_json.blind_case, cli_json.check, cli_json.paste, cli_json.asked


def _commands(doc: dict) -> list[str]:
    return [a["command"] for a in doc["pasted"]["ask_for"] or []]


def _blocking(doc: dict) -> list[str]:
    return [f["code"] for f in doc["findings"] if f["severity"] in ("warning", "error", "critical")]


def _named(doc: dict, where: str, *, driver_shown: bool = False) -> None:
    """The one finding is the unexplained symptom, a warning, and names every cause still open at `where`."""
    assert _blocking(doc) == [UNEXPLAINED]
    (finding,) = (f for f in doc["findings"] if f["code"] == UNEXPLAINED)
    assert finding["severity"] == "warning"
    for cause in GPU_NOT_REACHED.candidates[where]:
        assert (cause.text in finding["detail"]) is not (cause.driver and driver_shown), cause.text


# -- Linux: the driver, the build and the program's own device choice --------------------------------------------


def test_linux_words_only_name_the_causes_and_ask_the_driver_and_the_visible_devices():
    # ultralytics/ultralytics#9844: "GPU utilization was always zero", a screenshot, nothing else
    doc = _check(_case("plans7/cases/642-ultralytics9844"))
    _named(doc, "linux")
    asked = _asked(doc)
    assert ["nvidia-smi"] in asked and ["printenv", "CUDA_VISIBLE_DEVICES"] in asked
    assert "No problems found" not in run_cli("check", "--from", str(_case("plans7/cases/642-ultralytics9844")))[1]


def test_a_programs_warning_that_it_found_no_gpu_is_the_same_symptom():
    # dmlc/xgboost#11482: "WARNING: ... No visible GPU is found, setting device to CPU." (failure_lines'
    # gpu-unavailable-warning form of a line no catalogue entry knows), in the container the reporter says they use
    # ("I am using UBI9 nvidia CUDA 12.6 x86 container": gpudoctor.pasted.cues), so the container's causes and asks
    doc = _check(_case("plans7/cases/611-xgb11482"))
    (e,) = (e for e in doc["facts"]["pasted"]["errors"] if e["kind"] == "gpu-stack-failure")
    assert dict(e["values"])["form"] == "gpu-unavailable-warning"
    _named(doc, "container")
    assert ["docker", "run", "--rm", "--gpus", "all", "ubuntu", "nvidia-smi"] in _asked(doc)


def test_linux_public_thread(tmp_path):
    # https://github.com/ollama/ollama/issues/797 (its first lines as posted)
    doc = _paste(
        tmp_path,
        "I am testing using ollama on linux and docker, and its not using the GPU at all.\n\n"
        "it appears that ollma is not using the CUDA image.\n",
    )
    _named(doc, "linux")
    assert ["nvidia-smi"] in _asked(doc) and ["printenv", "CUDA_VISIBLE_DEVICES"] in _asked(doc)


def test_linux_quiet_twin_gpu_at_work(tmp_path):
    # https://github.com/ollama/ollama/issues/6364 (a comment): the GPU is used, the words say so
    doc = _paste(
        tmp_path,
        "ok, I don't know what happened. (I didn't make any change other than downloading a different model i.e. "
        "llama3.1:8b)\n\nI ran it and the GPU utilisation went up to 75%.\n",
    )
    assert _blocking(doc) == []


def test_is_available_said_to_fail_or_report_false_is_the_symptom():
    # tests/blind/plans12/cases/1252-*: on a Slurm cluster, "`torch.cuda.is_available()` always fails" beside a CUDA
    # build and a new driver in prose only: the symptom, with the job's asks, never "No problems found"
    doc = _check(_case("plans12/cases/1252-kilosort-733"))
    _named(doc, "linux")
    asked = _asked(doc)
    assert ["printenv", "SLURM_JOB_ID"] in asked and ["printenv", "CUDA_VISIBLE_DEVICES"] in asked


def test_is_available_reports_false_public_thread(tmp_path):
    # https://github.com/mlverse/torch/issues/465 (its first sentence as posted): R torch's cuda_is_available()
    doc = _paste(
        tmp_path,
        "I am trying to use this package on a GPU cluster that I have access to, but `cuda_is_available()` reports "
        "FALSE, even though `nvidi-smi` sees the GPU.\n",
    )
    _named(doc, "linux")


def test_is_available_quiet_twin_it_shows_true(tmp_path):
    # https://github.com/pytorch/pytorch/issues/9535 (the reporter's second comment): is_available() answers True, and
    # a failure "with" a message is the message's to judge, not these words
    doc = _paste(
        tmp_path,
        "Yes, It is the master branch. The error log reminder me that Cuda is not available. But if I run "
        "`torch.cuda.is_available()`, It shows True.\n",
    )
    assert "gpu-unused-said" not in [e["kind"] for e in doc["facts"]["pasted"]["errors"]]
    assert UNEXPLAINED not in _blocking(doc)


# -- training at the CPU's pace: the GPU unused, in other words ----------------------------------------------------


def test_training_as_slow_as_the_cpu_is_the_symptom_and_a_tf_1x_is_probed_with_1x_calls():
    # tests/blind/plans12/cases/1222-*: "keras2.0 + tensorflow-gpu1.1.0 ... much slower than before, just like run in a
    # cpu version": the symptom, never "No problems found"; TensorFlow 1.1 has no tf.config, so its probe is 1.x's
    doc = _check(_case("plans12/cases/1222-keras6445"))
    _named(doc, "linux")
    cues = [c for c in doc["facts"]["pasted"]["cues"] if c["cue"] == "a TensorFlow older than tf.config"]
    assert [c["means"] for c in cues] == ["tensorflow 1.1.0"]
    (probe,) = [a for a in _asked(doc) if a[1:2] == ["-c"] and "tensorflow" in a[2]]
    assert "tf.test.is_gpu_available()" in probe[2] and "tf.config" not in probe[2]


def test_training_as_slow_as_the_cpu_public_thread(tmp_path):
    # https://github.com/tensorflow/models/issues/10002 (its title, the whole report)
    doc = _paste(tmp_path, "GPU training is as slow as CPU training\n")
    _named(doc, "linux")


def test_tf_1x_named_in_words_public_thread(tmp_path):
    # https://github.com/tensorflow/models/issues/3366 (a comment): "tensorflow-gpu 1.8" named in words, no listing
    doc = _paste(
        tmp_path,
        "I'm also facing the same problem. I have installed tensorflow-gpu 1.8, validated installation and uses gpu, "
        "but the python code, it says using tensforflow as backend, but still CPU memory is 100% and not using GPU .\n",
    )
    (probe,) = [a for a in _asked(doc) if a[1:2] == ["-c"] and "tensorflow" in a[2]]
    assert "tf.test.is_gpu_available()" in probe[2] and "tf.config" not in probe[2]


def test_quiet_twin_a_gpu_measured_slower_than_the_cpu(tmp_path):
    # https://github.com/tensorflow/tensorflow/issues/5995 (its first lines): the GPU at work, measured slower
    doc = _paste(
        tmp_path,
        "GPU training is MUCH slower than CPU training. It's possible I'm doing something wrong. GPU usage is around "
        "2-5%, It fills up the memory in the GPU pretty quickly to 90%\n",
    )
    assert "gpu-unused-said" not in [e["kind"] for e in doc["facts"]["pasted"]["errors"]]
    assert UNEXPLAINED not in _blocking(doc)


def test_quiet_twin_a_tensorflow_with_tf_config_named_beside(tmp_path):
    # https://github.com/tensorflow/tensorflow/issues/34485 (its title): 2.0 and 1.15 both have tf.config
    doc = _paste(tmp_path, "Tensorflow 2.0 does not use GPU, while Tensorflow 1.15 does\n")
    assert "a TensorFlow older than tf.config" not in [c["cue"] for c in doc["facts"]["pasted"]["cues"]]
    (probe,) = [a for a in _asked(doc) if a[1:2] == ["-c"] and "tensorflow" in a[2]]
    assert "tf.config" in probe[2]


# -- the program's device choice landing on the CPU, in the reporter's words ---------------------------------------


def test_a_program_said_to_default_to_the_cpu_is_the_symptom():
    # tests/blind/plans16/cases/1636-*: Windows 11, an RTX 40 card, "make it use GPU instead of CPU ... It seems to
    # default to using CPU": never "No problems found"; the driver and the environment's builds are asked
    doc = _check(_case("plans16/cases/1636-indextts"))
    _named(doc, "windows")
    asked = _asked(doc)
    assert ["nvidia-smi"] in asked
    assert ["python", "-m", "pip", "list"] in asked


def test_a_program_said_to_use_the_cpu_by_default_public_thread(tmp_path):
    # https://github.com/pytorch/pytorch/issues/9464 (its first lines): Windows 10, "it uses by default the CPU, not the GPU"
    doc = _paste(
        tmp_path,
        "I am using windows 10 and I have pytorch installed and I have a GPU\n"
        "when running a pytorch script, it uses by default the CPU, not the GPU\n"
        "How can I force the script to uses GPU not the CPU ?\n",
    )
    _named(doc, "windows")


@pytest.mark.parametrize(
    "words",
    [
        # the wish for the CPU, not a report that the GPU goes unused
        "How can I make it default to CPU when no GPU is present?\n",
        "Can the server default to CPU for the embedding model? The GPU is needed for the LLM.\n",
    ],
)
def test_quiet_twin_the_wish_for_the_cpu(tmp_path, words):
    doc = _paste(tmp_path, words)
    assert "gpu-unused-said" not in [e["kind"] for e in doc["facts"]["pasted"]["errors"]]
    assert UNEXPLAINED not in _blocking(doc)


# -- Windows: the driver shown answering closes the driver's cause, and nvidia-smi is not asked again --------------


def test_windows_driver_shown_leaves_the_build_and_the_device_setting():
    # janhq/jan#8576: nvidia-smi works and lists the RTX 4050; Jan says "No GPU Found"
    doc = _check(_case("plans8/cases/846-jan8576"))
    _named(doc, "windows", driver_shown=True)
    assert ["nvidia-smi"] not in _asked(doc)  # shown already


def test_windows_driver_not_shown_asks_nvidia_smi():
    # tensorflow/tensorflow#63455: "I am unable to use my GPU for training, as it remains at 0% usage"
    doc = _check(_case("plans6/cases/513-tf63455"))
    _named(doc, "windows")
    assert ["nvidia-smi"] in _asked(doc)


# -- WSL 2: the Windows driver's libraries reaching the distribution, or shadowed ---------------------------------


def test_wsl_asks_the_windows_drivers_libraries_and_a_linux_driver_package():
    # tensorflow/tensorflow#63948 (tests/blind/pasted): "not recognizing my GPU" in WSL, no log
    doc = _check(_case("pasted/cases/024-tensorflow-63948"))
    _named(doc, "wsl")
    assert ["ls", "-l", "/usr/lib/wsl/lib"] in _asked(doc)
    assert "dpkg -l | grep -Ei 'nvidia|libcuda'" in _commands(doc)


# -- a container: whether it was given the GPU, asked on the host and inside -------------------------------------


def test_container_asks_whether_docker_passes_a_gpu_at_all():
    # ollama/ollama#2809: "run ... on WSL via docker image with `gpus-all` flag. Still it does not utilise my Nvidia GPU."
    doc = _check(_case("plans4/cases/351-ollama2809"))
    _named(doc, "container")
    asks = {tuple(a["argv"]): a for a in doc["pasted"]["ask_for"]}
    assert ("docker", "run", "--rm", "--gpus", "all", "ubuntu", "nvidia-smi") in asks
    assert ("nvidia-smi", "-L") in asks  # inside the program's container (its name not shown: typed inside it)


def test_container_started_by_a_run_line_with_gpus_is_asked_by_name_and_not_how_it_was_started():
    # ollama/ollama#4242: "it does not run on GPU", beside `sudo docker run -d --gpus=all ... --name ollama ollama/ollama`
    doc = _check(_case("plans3/cases/232-ollama4242"))
    _named(doc, "container")
    asked = _asked(doc)
    assert ["docker", "run", "--rm", "--gpus", "all", "ubuntu", "nvidia-smi"] in asked
    assert ["docker", "exec", "ollama", "nvidia-smi", "-L"] in asked
    assert not [a for a in asked if a[:2] == ["docker", "inspect"]]  # the run line shows it requested the GPUs


# -- a pod: its request and runtime class, what it sees, what the nodes advertise ---------------------------------


def test_pod_asks_its_request_the_nodes_and_what_it_sees():
    # ollama/ollama#3211: "into container ollama doesn't detect gpu, but it work if i am running ollam directly on the node"
    doc = _check(_case("plans7/cases/650-ollama3211"))
    _named(doc, "pod")
    asked = _asked(doc)
    assert [
        "kubectl",
        "get",
        "pods",
        "-A",
        "-o",
        'jsonpath={range .items[*]}{.metadata.name} {.spec.runtimeClassName} {.spec.containers[*].resources.limits}{"\\n"}{end}',
    ] in asked
    assert ["kubectl", "describe", "nodes"] in asked  # (| grep -E '^Name:|nvidia.com/gpu')
    assert "kubectl describe nodes | grep -E '^Name:|nvidia.com/gpu'" in _commands(doc)


# -- quiet twins: fine reports whose words are not the symptom ----------------------------------------------------


@pytest.mark.parametrize(
    "case",
    [
        "plans3/cases/202-tf25848",  # "NOT allocate GPU memory": memory, not the GPU unreached
        "plans4/cases/303-gpuop629",  # "Cannot see gpu process": a process listing in a container
        "plans4/cases/320-pt20606",  # "not using the GPU specified by CUDA_VISIBLE_DEVICES": a device choice
        "plans9/cases/945-ollama6008",  # "still using CPU": layers split, the model larger than the GPU
        "plans11/cases/1143-easyocr223",  # EasyOCR's own "defaulting to CPU" notice on a machine without a GPU
        "pasted/cases/005-jax-21240",  # "falling back to CPU" quoted from before an upgrade that fixed it
    ],
)
def test_quiet_twins_do_not_read_as_the_symptom(case):
    doc = _check(_case(case))
    assert "gpu-unused-said" not in [e["kind"] for e in doc["facts"]["pasted"]["errors"]]
    assert UNEXPLAINED not in _blocking(doc)


def test_quiet_twin_the_environment_answered_true():
    # thuml/Time-Series-Library#10: "this one does not detect CUDA", but the same interpreter printed CUDA AVAILABLE: True
    # (the project's script hides the GPU): the words are read, and are no unexplained failure of the environment
    doc = _check(_case("plans4/cases/344-tslib10"))
    assert "gpu-unused-said" in [e["kind"] for e in doc["facts"]["pasted"]["errors"]]
    assert UNEXPLAINED not in _blocking(doc)


def test_quiet_twin_a_programs_own_message_is_judged_by_its_own_entry():
    # https://github.com/ollama/ollama/issues/2784 (tests/pasted/catalogue_examples): the installer's "No NVIDIA GPU
    # detected" on a machine that has none; the words pattern finds it too, but the installer's entry judges it
    doc = _check(ROOT / "tests/pasted/catalogue_examples/ollama-2784-install-no-nvidia-gpu-detected.txt")
    assert "gpu-unused-said" in [e["kind"] for e in doc["facts"]["pasted"]["errors"]]
    assert UNEXPLAINED not in _blocking(doc)
    assert not [a for a in doc["pasted"]["ask_for"] or [] if a["why"].endswith("(gpu-not-reached)")]


# -- the GPU said to reach the program's container: its words that it stays on the CPU are its own setting ---------


def _kinds(doc: dict) -> list[str]:
    return [e["kind"] for e in doc["facts"]["pasted"]["errors"]]


def test_nvidia_smi_said_to_work_in_the_container_leaves_no_environment_symptom():
    # tests/blind/plans10/cases/1040-* (a control: Jellyfin's ffmpeg copies the video stream, so no GPU is used): the
    # reporter runs nvidia-smi in the podman container; "jellyfin won't use the gpu" is then the program's setting.
    doc = _check(_case("plans10/cases/1040-"))
    assert "gpu-reached-said" in _kinds(doc) and "gpu-unused-said" in _kinds(doc)
    assert _blocking(doc) == []
    assert not [a for a in doc["pasted"]["ask_for"] or [] if a["why"].endswith("(gpu-not-reached)")]


def test_nvidia_smi_said_to_work_in_the_pod_is_read(tmp_path):
    # https://github.com/automatic-ripping-machine/automatic-ripping-machine/issues/803 (a comment, as posted)
    doc = _paste(tmp_path, "Hi,\nI know that the nvidia-smi tool is working and detect my card in the docker pod.\n")
    assert "gpu-reached-said" in _kinds(doc)


@pytest.mark.parametrize(
    "said",
    [
        "nvidia-smi doesn't work in the container either.",
        "I cannot run nvidia-smi in the container: it is not found.",
    ],
)
def test_nvidia_smi_said_to_fail_in_the_container_keeps_the_symptom(tmp_path, said):
    # Quiet twin: the same report's words with nvidia-smi failing there; the GPU is not shown reaching the program.
    doc = _paste(
        tmp_path, "I run jellyfin with podman. " + said + " Jellyfin won't use the gpu, everything is done with the CPU.\n"
    )
    assert "gpu-reached-said" not in _kinds(doc)
    assert _blocking(doc) == [UNEXPLAINED]


# -- another Python on the machine reaches the GPU: the driver is no cause, the environment's build is ------------------


def _detail(doc: dict) -> str:
    (finding,) = (f for f in doc["findings"] if f["code"] == UNEXPLAINED)
    return finding["detail"]


_DRIVER_CAUSE = GPU_NOT_REACHED.candidates["linux"][0].text
_CPU_BUILD = "a CPU-only build of the program or its framework"
_NEWER_CUDA = "a framework build for a newer CUDA than the driver supports"
_BUILDS_ASK = ["python3", "-m", "pip", "list"]


def test_the_global_python_reaching_the_gpu_leaves_the_venvs_build():
    # tests/blind/plans13/cases/1339-*: "when I run this globally, it finds the correct GPU. However, when I run it from
    # the faster whisper virtual environment, it gives me the issue" beside "does not seem to utilize my RTX 3060 mobile
    # GPU": the symptom is named, the driver is not among its causes, and pip's list in the program's environment is asked
    doc = _check(_case("plans13/cases/1339-"))
    assert "gpu-reached-elsewhere-said" in _kinds(doc) and "gpu-unused-said" in _kinds(doc)
    assert _blocking(doc) == [UNEXPLAINED]
    detail = _detail(doc)
    assert _CPU_BUILD in detail and _NEWER_CUDA in detail and _DRIVER_CAUSE not in detail
    assert _BUILDS_ASK in _asked(doc)


def test_the_base_environment_reaching_the_gpu_public_thread(tmp_path):
    # https://github.com/openvinotoolkit/openvino/issues/16578 (its description's sentence, as posted)
    doc = _paste(
        tmp_path,
        "It gives me an error saying that **torch.cuda.is_available() is False**.  CUDA cannot be detected although it "
        "can be detected in the base environment and any other environment I have created before.\n",
    )
    assert "gpu-reached-elsewhere-said" in _kinds(doc)
    assert _blocking(doc) == [UNEXPLAINED]
    assert _DRIVER_CAUSE not in _detail(doc) and _CPU_BUILD in _detail(doc)


def test_quiet_twin_the_other_python_failing_too(tmp_path):
    # The same sentence with the other environment failing as well: nothing reaches the GPU anywhere, the driver stays
    doc = _paste(
        tmp_path,
        "torch.cuda.is_available() is False. CUDA cannot be detected in the base environment either, it does not find "
        "the GPU globally.\n",
    )
    assert "gpu-reached-elsewhere-said" not in _kinds(doc)
    assert _DRIVER_CAUSE in _detail(doc)


# -- CUDA_VISIBLE_DEVICES shown naming GPUs the driver lists: it hides none --------------------------------------------


def test_visible_devices_naming_the_listed_gpu_close_the_hidden_cause():
    # tests/blind/plans13/cases/1341-*: "with my run `CUDA_VISIBLE_DEVICES=0 deepsignal_plant call_mods ...`" beside
    # nvidia-smi's table of one GPU, index 0: the variable is read as set for that run, and hides nothing
    doc = _check(_case("plans13/cases/1341-"))
    assert doc["facts"]["platform"]["env"] == {"CUDA_VISIBLE_DEVICES": "0"}
    assert "CUDA_VISIBLE_DEVICES" not in _detail(doc)
    assert ["printenv", "CUDA_VISIBLE_DEVICES"] not in _asked(doc)
    assert _BUILDS_ASK in _asked(doc)  # the build is what is left, in pip's list


def test_a_quoted_run_line_sets_the_variable_in_another_recorded_case():
    # tests/blind/plans4/cases/320-* (a control): "Run the following script using command `CUDA_VISIBLE_DEVICES=3 python
    # test.py`" beside collect_env's eight GPUs: read as set, and valid (no finding that it hides a GPU)
    doc = _check(_case("plans4/cases/320-pt20606"))
    assert doc["facts"]["platform"]["env"] == {"CUDA_VISIBLE_DEVICES": "3"}
    assert _blocking(doc) == []


def test_quiet_twin_a_variable_quoted_alone_names_no_run(tmp_path):
    # "I tried `CUDA_VISIBLE_DEVICES=0`": a setting talked about, no command run with it, so the cause stays open
    doc = _paste(
        tmp_path,
        "I tried `CUDA_VISIBLE_DEVICES=0` and it still does not use the GPU.\n"
        "|   0  NVIDIA GeForce ...  On   | 00000000:01:00.0 Off |                  N/A |\n",
    )
    assert doc["facts"]["platform"]["env"] == {}


# -- "No CUDA GPUs are available": the runtime asked the driver, so neither a CPU build nor a too new CUDA -------------


def test_no_cuda_gpus_rules_out_the_builds():
    # tests/blind/plans13/cases/1342-* (an ask): the conda environment's torch raised "No CUDA GPUs are available"; a CPU
    # build would have said "Torch not compiled with CUDA enabled", a too old driver "driver ... is too old"
    doc = _check(_case("plans13/cases/1342-"))
    detail = _detail(doc)
    assert _CPU_BUILD not in detail and _NEWER_CUDA not in detail and _DRIVER_CAUSE in detail


def test_no_cuda_gpus_rules_out_the_builds_in_another_recorded_case():
    # tests/blind/plans4/cases/352-* (an ask): "RuntimeError: No CUDA GPUs are available" beside a screenshot
    detail = _detail(_check(_case("plans4/cases/352-samus39")))
    assert _CPU_BUILD not in detail and _NEWER_CUDA not in detail


def test_quiet_twin_the_words_alone_keep_the_builds_open():
    # ultralytics/ultralytics#9844 (plans7/642): "GPU utilization was always zero", no line of the runtime's: the
    # builds stay among the causes
    detail = _detail(_check(_case("plans7/cases/642-ultralytics9844")))
    assert _CPU_BUILD in detail and _NEWER_CUDA in detail
