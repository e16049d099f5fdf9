"""The interpreter the paste's program runs, read from more of what a paste shows (h266, issues 27/28: plans that pip into
the python first on PATH instead of the program's): an environment's site-packages under lib64 (sys.platlibdir on
Fedora, RHEL, openSUSE), the interpreter's path printed alone (a job's `which python`, "Python executable: ..."), and,
where none is shown, the console script that started the program, whose #! line the first ask reads. Recorded pastes of
different threads; expectations by hand."""

from __future__ import annotations

from tests.pasted.cli_json import ROOT, asked, blind_case, check, paste


def _python(doc: dict) -> str | None:
    """The interpreter the report's Python steps run (None where the paste shows nothing of one)."""
    python = doc["facts"]["frameworks"]["python"]
    return python["value"]["executable"] if python["status"] == "found" else None


def _python_argv(doc: dict) -> list[list[str]]:
    """Every printed command (plan steps and asks) that runs an interpreter or its pip."""
    argv = [c["argv"] for s in doc["plan"]["steps"] for c in s["commands"] if "argv" in c] + asked(doc)
    return [a for a in argv if a[0].replace("\\", "/").rsplit("/", 1)[-1].lower().startswith(("python", "pip"))]


def test_a_venv_whose_packages_sit_under_lib64_is_the_interpreter_of_every_python_step():
    # cupy/cupy#8227 (plans4 324): <venv>/lib64/python3.9/site-packages/cupy in the traceback
    doc = check(blind_case("plans4/cases/324"))
    assert _python(doc) == "/home/zhhuo/rl_llm_py_product/venv/bin/python"
    steps = _python_argv(doc)
    assert steps and all(a[0] == "/home/zhhuo/rl_llm_py_product/venv/bin/python" for a in steps)


def test_a_lib64_prefix_of_another_thread_and_the_system_lib64_kept_apart():
    # dmlc/xgboost#11482 (plans7 611): a venv at /home/builder/test; vllm#11623 (plans9 916): /usr/local/lib64 is the
    # system's, which has no interpreter of its own (python3 stays)
    assert _python(check(blind_case("plans7/cases/611"))) == "/home/builder/test/bin/python"
    assert _python(check(blind_case("plans9/cases/916"))) in (None, "python3", "python")


def test_an_interpreter_path_printed_alone_is_the_programs():
    # a Slurm job printing `which python` first (plans17 1731, nnUNet#2155) and a script's "Python executable:" line
    # (plans4 349, ollama#11842)
    doc = check(blind_case("plans17/cases/1731"))
    assert _python(doc) == "/home/gridsan/nchutisilp/.conda/envs/nnunet/bin/python"
    assert ["/home/gridsan/nchutisilp/.conda/envs/nnunet/bin/python", "-m", "torch.utils.collect_env"] in asked(doc)
    assert _python(check(blind_case("plans4/cases/349"))) == "/scratch/qualis/miniconda3/envs/deepseek/bin/python"


def test_two_interpreters_printed_decide_none(tmp_path):
    # deepspeed#1481 (plans6 515) shape: the launcher's node prints one Python, a remote rank another
    doc = paste(
        tmp_path,
        "/root/miniconda3/bin/python\n/home/u/envs/other/bin/python\n"
        "RuntimeError: CUDA error: no CUDA-capable device is detected\n",
    )
    assert _python(doc) in (None, "python3", "python")


def test_an_anonymised_interpreter_path_is_not_one_to_run(tmp_path):
    doc = paste(tmp_path, "/path/to/envs/x/bin/python\nRuntimeError: CUDA error: no CUDA-capable device is detected\n")
    assert _python(doc) in (None, "python3", "python")


def _console_cue(doc: dict) -> dict | None:
    return next((c for c in doc["facts"]["pasted"]["cues"] if c["cue"] == "a console script ran the program"), None)


def test_a_console_script_typed_at_the_prompt_has_its_shebang_read_first():
    # the ColabFold thread of plans18 1851: `colabfold_batch` at a cluster prompt, no interpreter shown; the reviewers'
    # expectation reads the script's #! line before any pip step
    doc = check(blind_case("plans18/cases/1851"))
    cue = _console_cue(doc)
    assert cue is not None and cue["means"] == "colabfold_batch"
    first = doc["pasted"]["ask_for"][0]
    assert first["argv"] == ["command", "-v", "colabfold_batch"]  # (piped to `xargs head -1`: its first line)
    assert not any(a["argv"][-1] == "import sys; print(sys.executable)" for a in doc["pasted"]["ask_for"])


def test_console_scripts_of_other_threads_are_read_as_such():
    # accelerate launch at a prompt (plans14 1442, LoRA_Easy_Training_Scripts#50) and torchrun in a training command
    # (tests/pasted catalogue example fastchat-399): the cue, whether or not an ask follows
    assert _console_cue(check(blind_case("plans14/cases/1442")))["means"] == "accelerate"
    doc = check(ROOT / "tests/pasted/catalogue_examples/fastchat-399-v100-transformers-bf16-unsupported.txt")
    assert _console_cue(doc)["means"] == "torchrun"


def test_a_fine_case_gets_no_shebang_ask():
    # plans14 1442 is a control: nothing failed, so nothing is asked about the interpreter
    doc = check(blind_case("plans14/cases/1442"))
    assert not any(a[:1] == ["command"] or a[:1] == ["head"] for a in asked(doc))


def test_a_console_script_in_an_environment_with_its_packages_shown_needs_no_shebang(tmp_path):
    # the traceback shows the environment's site-packages: its interpreter is read, and no script's #! is asked
    text = (
        "Traceback (most recent call last):\n"
        '  File "/opt/envs/cf/bin/colabfold_batch", line 8, in <module>\n'
        "    sys.exit(main())\n"
        '  File "/opt/envs/cf/lib/python3.10/site-packages/colabfold/batch.py", line 10, in <module>\n'
        "    import jax\n"
        "ModuleNotFoundError: No module named 'jax'\n"
    )
    doc = paste(tmp_path, text)
    assert _python(doc) == "/opt/envs/cf/bin/python"
    assert not any(a[:1] in (["command"], ["head"]) for a in asked(doc))


def test_a_console_script_frame_alone_has_that_file_read(tmp_path):
    # no site-packages shown, the script's own file is in the first frame: its first line names the interpreter
    text = (
        "$ colabfold_batch input.fasta out\n"
        "Traceback (most recent call last):\n"
        '  File "/home/u/cf/bin/colabfold_batch", line 8, in <module>\n'
        "    from colabfold.batch import main\n"
        "ModuleNotFoundError: No module named 'colabfold'\n"
    )
    doc = paste(tmp_path, text)
    cue = _console_cue(doc)
    assert cue is not None and cue["path"] == "/home/u/cf/bin/colabfold_batch"
    heads = [a for a in asked(doc) if a[:1] == ["head"]]
    assert heads == [["head", "-1", "/home/u/cf/bin/colabfold_batch"]]


def test_pips_already_satisfied_location_names_the_environment_it_ran_in():
    # comfyanonymous/ComfyUI#5289 (plans4 355): "Requirement already satisfied: numpy in /home/ks/venv/lib/python3.12/
    # site-packages (2.1.2)", the fix installs into that venv
    doc = check(blind_case("plans4/cases/355"))
    assert _python(doc) == "/home/ks/venv/bin/python"
    installs = [a for a in _python_argv(doc) if a[1:4] == ["-m", "pip", "install"]]
    assert installs and all(a[0] == "/home/ks/venv/bin/python" for a in installs)


def test_the_same_line_in_markdown_backticks_from_another_thread():
    # facebookresearch/faiss#2892 (tests/pasted/cases): a conda image's /opt/conda, the faiss packages asked of it
    doc = check(ROOT / "tests/pasted/cases/faiss-2892-pip-faiss-gpu-172-no-standardgpuresources-ask/report.txt")
    assert _python(doc) == "/opt/conda/bin/python"
    assert any(a[:4] == ["/opt/conda/bin/python", "-m", "pip", "show"] for a in asked(doc))


def test_a_traceback_site_wins_over_pips_line_and_a_relative_location_names_none(tmp_path):
    text = (
        "Requirement already satisfied: numpy in ./venv/lib/python3.10/site-packages (1.26.4)\n"
        "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
    )
    assert _python(paste(tmp_path, text)) in (None, "python3", "python")
    text = (
        '  File "/srv/app/.venv/lib/python3.11/site-packages/torch/cuda/__init__.py", line 1, in <module>\n'
        "Requirement already satisfied: numpy in /opt/other/lib/python3.11/site-packages (1.26.4)\n"
        "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
    )
    assert _python(paste(tmp_path, text)) == "/srv/app/.venv/bin/python"


def test_a_windows_console_script_launcher_in_a_conda_env_names_its_python_exe():
    # nerfstudio#724 (plans17 1746): ns-train.exe\__main__.py under the env's Scripts, runpy.py from the env's own lib:
    # a conda environment, python.exe at its root (the expectation's interpreter)
    doc = check(blind_case("plans17/cases/1746"))
    python = "C:\\Users\\user\\miniconda3\\envs\\nerfstudio\\python.exe"
    assert _python(doc) == python
    steps = _python_argv(doc)
    assert steps and all(a[0] == python for a in steps)


def test_a_windows_launcher_run_by_a_base_pythons_runpy_is_a_venvs(tmp_path):
    # invoke-ai/InvokeAI#5773 (plans15 1544): the frames as pasted, without the site-packages lines that decide it
    # there: runpy.py from Python310's lib, the launcher under .venv\Scripts: the venv's Scripts\python.exe
    text = (
        "Traceback (most recent call last):\n"
        '  File "C:\\Users\\m1-x3\\AppData\\Local\\Programs\\Python\\Python310\\lib\\runpy.py", line 196, in '
        "_run_module_as_main\n"
        '  File "C:\\Users\\m1-x3\\invokeai\\.venv\\Scripts\\invokeai-web.exe\\__main__.py", line 7, in <module>\n'
        "AssertionError: Torch not compiled with CUDA enabled\n"
    )
    assert _python(paste(tmp_path, text)) == "C:\\Users\\m1-x3\\invokeai\\.venv\\Scripts\\python.exe"
