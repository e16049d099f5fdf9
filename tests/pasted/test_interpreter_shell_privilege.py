"""The program's own environment and privilege in every printed command (issue 27, kind 8): a conda environment a
prompt shows active is entered again after a restart (gpudoctor.planner.where.reentry, planner.resume), an image the
reporter ran under sudo is asked of under sudo (where.image_root), a `sudo pip` or `sudo python` moved into the
environment's own interpreter loses its sudo, an AUTOMATIC1111-family web UI's launch frames name the venv beside it
(gpudoctor.pasted.read). Recorded pastes, expectations by hand; each rule with its quiet twin."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.facts import ENV_PROMPT, IMAGE_RUN, PROGRAM_IMAGE
from gpudoctor.pasted import load_sources, read_pasted
from gpudoctor.pasted.cues import prompt_env
from tests.pasted.cli_json import ROOT, blind_case, check, paste


def cues(path: Path, name: str) -> list[dict]:
    return [c for c in read_pasted(load_sources([str(path)]))["pasted"]["cues"] if c["cue"] == name]


def last_commands(doc: dict) -> list[tuple[list[str], bool]]:
    step = doc["plan"]["steps"][-1]
    assert step["component"] == "resume"
    return [(c["argv"], c["root"]) for c in step["commands"]]


# --- the prompt's environment ----------------------------------------------------------------------------------------


def test_prompt_env_reads_the_name_an_activation_writes_before_the_prompt():
    assert prompt_env("(tf_daily) C:\\Users\\me>pip install x") == "tf_daily"
    assert prompt_env("(venv) PS C:\\app> python main.py") == "venv"
    assert prompt_env("(textgen) ubuntu@ubuntu:~/text-generation-webui$ python server.py") == "textgen"
    # (a side's prompt, a prompt with no environment, prose in parentheses)
    assert prompt_env("(container) $ nvidia-smi") is None
    assert prompt_env("C:\\Users\\me>pip install x") is None
    assert prompt_env("(see below) the install failed") is None


def test_the_conda_environment_of_the_prompt_is_recorded_with_its_kind():
    # 1303: `conda create -n tf_daily`, `activate tf_daily`, then `(tf_daily) C:\Users\nurl_>pip install ...`
    (cue,) = cues(blind_case("plans13/cases/1303"), ENV_PROMPT)
    assert (cue["means"], cue["kind"]) == ("tf_daily", "conda")


def test_a_venv_known_by_its_prompt_alone_is_no_conda_environment(tmp_path):
    text = blind_case("plans13/cases/1303").read_text(encoding="utf-8")
    text = text.replace("conda create -n tf_daily python=3.6\nactivate tf_daily\n", "python -m venv tf_daily\n")
    path = tmp_path / "venv.txt"
    path.write_text(text, encoding="utf-8")
    (cue,) = cues(path, ENV_PROMPT)
    assert (cue["means"], cue["kind"]) == ("tf_daily", "")


def test_condas_base_is_no_environment_to_enter_again(tmp_path):
    text = blind_case("plans13/cases/1303").read_text(encoding="utf-8").replace("(tf_daily) C:", "(base) C:")
    path = tmp_path / "base.txt"
    path.write_text(text, encoding="utf-8")
    assert cues(path, ENV_PROMPT) == []


# --- after a restart -------------------------------------------------------------------------------------------------


def test_after_the_restart_the_rerun_enters_the_prompts_conda_environment_first():
    # long paths enabled, `shutdown /r /t 0`: a new Anaconda Prompt starts in base, where pip is another environment's
    assert last_commands(check(blind_case("plans13/cases/1303"))) == [
        (["conda", "activate", "tf_daily"], False),
        (["pip", "install", "tf-nightly-2.0-preview"], False),
    ]


def test_with_no_environment_on_the_prompt_the_rerun_is_as_typed(tmp_path):
    text = blind_case("plans13/cases/1303").read_text(encoding="utf-8").replace("(tf_daily) C:", "C:")
    assert last_commands(paste(tmp_path, text)) == [(["pip", "install", "tf-nightly-2.0-preview"], False)]


def test_a_venv_named_by_its_prompt_alone_gets_no_conda_activate(tmp_path):
    text = blind_case("plans13/cases/1303").read_text(encoding="utf-8")
    text = text.replace("conda create -n tf_daily python=3.6\nactivate tf_daily\n", "python -m venv tf_daily\n")
    assert last_commands(paste(tmp_path, text)) == [(["pip", "install", "tf-nightly-2.0-preview"], False)]


# --- sudo ------------------------------------------------------------------------------------------------------------


def test_an_image_run_under_sudo_is_asked_of_under_sudo():
    # `$ sudo docker run -t -i floydhub/pytorch:latest-gpu-py3 ipython`: the reporter's user cannot reach docker
    path = ROOT / "tests/pasted/cases/floydhub-3-docker-run-without-nvidia-runtime/report.txt"
    (cue,) = cues(path, PROGRAM_IMAGE)
    assert cue.get("root") == "sudo"
    asks = [a["command"] for a in check(path)["pasted"]["ask_for"] if a["argv"][:2] == ["docker", "run"]]
    assert asks and all(a.startswith("sudo docker run ") for a in asks)


def test_an_image_run_with_gpus_under_sudo_is_asked_of_under_sudo():
    # 817: `$ sudo docker run --net=host -it --gpus all tensorflow/tensorflow:2.6.0-gpu /bin/bash`
    path = blind_case("plans8/cases/817")
    (cue,) = cues(path, IMAGE_RUN)
    assert (cue["means"], cue.get("root")) == ("tensorflow/tensorflow:2.6.0-gpu", "sudo")
    asks = [a["command"] for a in check(path)["pasted"]["ask_for"] if a["argv"][:2] == ["docker", "run"]]
    assert asks and all(a.startswith("sudo docker run --rm --gpus all ") for a in asks)


def test_an_image_run_without_sudo_is_asked_of_without(tmp_path):
    text = blind_case("plans8/cases/817").read_text(encoding="utf-8").replace("$ sudo docker run", "$ docker run")
    path = tmp_path / "plain.txt"
    path.write_text(text, encoding="utf-8")
    (cue,) = cues(path, IMAGE_RUN)
    assert "root" not in cue
    asks = [a["command"] for a in check(path)["pasted"]["ask_for"] if a["argv"][:2] == ["docker", "run"]]
    assert asks and all(a.startswith("docker run --rm --gpus all ") for a in asks)


def test_sudo_before_the_environments_own_interpreter_is_not_copied(tmp_path):
    # 441 with its script typed under sudo: the rerun moves into the conda environment's python, which is its owner's
    text = blind_case("plans5/cases/441").read_text(encoding="utf-8")
    text = text.replace("\npython server.py\n", "\n$ sudo python server.py\n")
    assert last_commands(paste(tmp_path, text)) == [(["/home/crazykrow/miniconda3/envs/textgen/bin/python", "server.py"], False)]


def test_sudo_stays_where_the_command_runs_as_typed(tmp_path):
    # the same, its packages in the system's dist-packages: no environment of its own, the reporter's sudo kept
    text = blind_case("plans5/cases/441").read_text(encoding="utf-8")
    text = text.replace("\npython server.py\n", "\n$ sudo python server.py\n")
    text = text.replace("/home/crazykrow/miniconda3/envs/textgen/lib/python3.10/site-packages", "/usr/lib/python3/dist-packages")
    assert last_commands(paste(tmp_path, text)) == [(["python", "server.py"], True)]


# --- an application's own environment --------------------------------------------------------------------------------


def _python_asks(doc: dict) -> list[str]:
    return [a["argv"][0] for a in doc["pasted"]["ask_for"] if a["argv"][0].lower().endswith("python.exe")]


def test_the_web_uis_launch_frames_name_the_venv_beside_it():
    # 1249: Stability Matrix's stable-diffusion-webui-directml, its launch.py and modules\launch_utils.py frames, no
    # launcher line: the package's own venv (StabilityMatrix's SetupVenv, A1111's webui.bat VENV_DIR)
    venv = "C:\\Users\\roger\\StabilityMatrix\\Data\\Packages\\stable-diffusion-webui-directml\\venv\\Scripts\\python.exe"
    asks = _python_asks(check(blind_case("plans12/cases/1249")))
    assert asks and set(asks) == {venv}


def test_the_release_package_keeps_its_own_python():
    # 345: the same frames under <root>\webui beside run.bat: the release package's system\python, not a venv
    asks = _python_asks(check(blind_case("plans4/cases/345")))
    assert asks and set(asks) == {"C:\\Users\\steve\\Desktop\\Stable Diffusion\\system\\python\\python.exe"}


def test_an_interpreter_the_paste_shows_wins_over_the_launch_frames(tmp_path):
    shown = "C:\\Users\\roger\\AppData\\Local\\Programs\\Python\\Python310\\python.exe"
    text = blind_case("plans12/cases/1249").read_text(encoding="utf-8")
    text = text.replace("NVIDIA driver was found.\n", f"NVIDIA driver was found.\nPython: {shown}\n", 1)
    assert set(_python_asks(paste(tmp_path, text))) == {shown}


# The AUTOMATIC1111 web UI's own CUDA check off Windows (pasted.read._interpreter_of_webui_check): webui.sh runs it in the
# venv it makes in the web UI's folder, so the probes run that venv's python, not the shell's python3.
def _torch_probes(doc: dict) -> set[str]:
    return {a["argv"][0] for a in doc["pasted"]["ask_for"] if any("torch" in part for part in a["argv"][1:])}


# From https://github.com/AUTOMATIC1111/stable-diffusion-webui/issues/10932 (the description's "What happened?", as
# posted): Ubuntu, webui.sh, the check's message in prose and no interpreter shown.
_WEBUI_10932 = """### What happened?

Hello!
I am usually using windows version of SD AUTOMATIC1111 and it is work fine for now, but today i tried to install it on Ubuntu to see if how much better or worse performance will be with ROCm. 
I did all according to wiki article about installation for AMD GPUs. At first in processes of installation i had error "ERROR: Cannot activate python venv, aborting...", for that i found fix in form of "python3 -m venv venv/". After this installation proceed, installing bunch of files and after that pops error "RuntimeError: Torch is not able to use GPU; add --skip-torch-cuda-test to COMMANDLINE_ARGS variable to disable this check"  
However adding --skip-torch-cuda-test to webui-user.sh does nothing, error still appear even after adding this line.
"""

# From https://github.com/Delcos/Hentai-Diffusion/issues/5 (the reporter's log, as posted; Arch Linux, webui.sh): the
# check's failure prints its command, and with it the venv's interpreter by its full path.
_WEBUI_COMMAND_SHOWN = """################################################################
Launching launch.py...
################################################################
Python 3.10.8 (main, Nov  1 2022, 14:18:21) [GCC 12.2.0]
Commit hash: 828438b4a190759807f9054932cae3a8b880ddf1
Traceback (most recent call last):
  File "/home/foxmaccloud/stable-diffusion-webui/launch.py", line 250, in <module>
    prepare_enviroment()
  File "/home/foxmaccloud/stable-diffusion-webui/launch.py", line 174, in prepare_enviroment
    run_python("import torch; assert torch.cuda.is_available(), 'Torch is not able to use GPU; add --skip-torch-cuda-test to COMMANDLINE_ARGS variable to disable this check'")
  File "/home/foxmaccloud/stable-diffusion-webui/launch.py", line 58, in run_python
    return run(f'"{python}" -c "{code}"', desc, errdesc)
  File "/home/foxmaccloud/stable-diffusion-webui/launch.py", line 34, in run
    raise RuntimeError(message)
RuntimeError: Error running command.
Command: "/home/foxmaccloud/stable-diffusion-webui/venv/bin/python3" -c "import torch; assert torch.cuda.is_available(), 'Torch is not able to use GPU; add --skip-torch-cuda-test to COMMANDLINE_ARGS variable to disable this check'"
"""


def test_the_web_uis_cuda_check_off_windows_probes_its_venv(tmp_path):
    # 1433 (plans14, screenshots only) and 10932: no interpreter shown, so webui.sh's default venv in the web UI's folder
    assert _torch_probes(check(blind_case("plans14/cases/1433"))) == {"./venv/bin/python"}
    assert _torch_probes(paste(tmp_path, _WEBUI_10932)) == {"./venv/bin/python"}


def test_the_web_uis_check_command_names_its_interpreter(tmp_path):
    assert _torch_probes(paste(tmp_path, _WEBUI_COMMAND_SHOWN)) == {"/home/foxmaccloud/stable-diffusion-webui/venv/bin/python3"}


def test_the_web_uis_check_on_windows_and_other_failures_keep_their_interpreters(tmp_path):
    # quiet twins: on Windows the launcher's venv line decides (233: its venv\Scripts\python.exe, as before); a Linux
    # torch failure that is not the web UI's check keeps the shell's python3 (1305: mmcv built against another torch)
    venv = "C:\\Users\\Sky\\Downloads\\stable-diffusion-webui-master\\stable-diffusion-webui-master\\venv\\Scripts\\Python.exe"
    assert _torch_probes(check(blind_case("plans3/cases/233"))) == {venv}
    assert _torch_probes(check(blind_case("plans13/cases/1305"))) == {"python3"}


# --- the prompt a bare interpreter is typed at ----------------------------------------------------------------------


def _notes(doc: dict) -> dict[str, str]:
    """Each ask's program (its first word) and note, the last of each program."""
    return {a["argv"][0]: a.get("note", "") for a in doc["pasted"]["ask_for"]}


def test_a_bare_python_asked_where_a_prompt_showed_the_environment_says_which_prompt():
    # 348: `(pia) PS E:\PIA> python inference.py`; 1025: `(PythonGPU) C:\...>python`: the environment is known only by
    # the name its prompt carries, so a bare python is right only at that prompt (where.prompt_env_note)
    for case, name in (("plans4/cases/348", "pia"), ("plans10/cases/1025", "PythonGPU")):
        notes = _notes(check(blind_case(case)))
        assert notes["python"] == f"in the {name} environment, where the program ran: activate it first in a new prompt"
        assert notes["nvidia-smi"] == ""  # (the driver's answer is the same at any prompt)


def test_a_conda_environment_on_the_prompt_is_entered_by_its_name(tmp_path):
    text = blind_case("plans4/cases/348").read_text(encoding="utf-8")
    notes = _notes(paste(tmp_path, "conda activate pia\n" + text))
    assert notes["python"] == "in the pia environment, where the program ran: conda activate pia first in a new prompt"


def test_no_prompt_note_without_the_prompts_environment_or_with_the_interpreter_shown(tmp_path):
    text = blind_case("plans4/cases/348").read_text(encoding="utf-8")
    assert _notes(paste(tmp_path, text.replace("(pia) PS E:", "PS E:")))["python"] == ""
    # 1742: `(bgremovers) user@MYPC:~/...$` after `. bin/activate` in ~/.venvs/bgremovers: the interpreter by its path
    doc = check(blind_case("plans17/cases/1742"))
    pythons = [a for a in doc["pasted"]["ask_for"] if a["argv"][0].endswith("/bin/python")]
    assert pythons and all(a["argv"][0] == "~/.venvs/bgremovers/bin/python" and not a.get("note") for a in pythons)


def test_the_plans_bare_pip_and_its_check_say_the_prompt_too():
    # 348's fix step (the CUDA build of torch) and the check after it: typed at the (pia) prompt, as the asks
    steps = check(blind_case("plans4/cases/348"))["plan"]["steps"]
    pythons = [c for s in steps for c in s["commands"] if isinstance(c, dict) and c.get("argv", [""])[0] == "python"]
    assert [c["argv"][1:3] for c in pythons] == [
        ["-m", "pip"],
        ["-c", "import torch; print(torch.__version__, torch.cuda.is_available())"],
    ]
    assert all(
        c["note"].endswith("in the pia environment, where the program ran: activate it first in a new prompt") for c in pythons
    )
    assert pythons[1]["note"].startswith("the fix took if this shows the GPU, ")  # (its own note first)


def test_after_conda_activate_the_rerun_needs_no_prompt_note():
    # 1303: the rerun after the restart follows `conda activate tf_daily`, which says where it runs
    (rerun,) = [c for c in check(blind_case("plans13/cases/1303"))["plan"]["steps"][-1]["commands"] if c["argv"][0] == "pip"]
    assert "tf_daily environment" not in rerun.get("note", "")


def test_each_python_command_says_the_prompt_once():
    # 1753: the step's python3 reads (the TensorFlow probe and the venv's package listing: no CUDA shown, so no look
    # and export of libcublas.so.10.0, gpudoctor.checks.library_copy.a_copy_may_fix) each say where the program ran, once
    doc = check(blind_case("plans17/cases/1753"))
    prompt = "in the deepspeech-venv environment, where the program ran: activate it first in a new prompt"
    steps = [c.get("note", "") for s in doc["plan"]["steps"] for c in s["commands"] if c.get("argv", [""])[0] == "python3"]
    assert len(steps) == 2
    assert all(n.count(prompt) == 1 and n.endswith(prompt) for n in steps)


def test_a_venvs_interpreter_by_its_path_places_its_packages_in_that_venv():
    # 1748 (kohya_ss's gui.sh) and 442 (Pinokio's app/env activated by its path): not the system's site-packages
    for case, site in (
        ("plans17/cases/1748", "/workspace/kohya_ss/venv/lib/python3/site-packages"),
        ("plans5/cases/442", "/home/lkyu/pinokio/api/RMBG-2-Studio.git/app/env/lib/python3/site-packages"),
    ):
        read = {r["fact"]: r for r in check(blind_case(case))["pasted"]["read_from"]}
        assert (read["python.site_packages.0"]["value"], read["python.site_packages.0"]["assumed"]) == (site, True)


def test_an_asks_own_note_keeps_its_words_and_gains_the_prompt():
    # 1548: `(pydetectron2) ...$` and an ask noted with what it shows: both said, its own words first
    asks = check(blind_case("plans15/cases/1548"))["pasted"]["ask_for"]
    (probe,) = [a for a in asks if a["argv"][:2] == ["python3", "-c"]]
    own, _, prompt = probe["note"].partition(", in the pydetectron2 environment")
    assert own.startswith("the torch the build compiles against") and prompt.startswith(", where the program ran")
