"""The precision of the asks (issues 27/28, h264): a general ask whose answer a more specific one of the same report
holds gives way to it, and no ask runs a language or framework the failing program does not (gpudoctor.pasted.supersede).

Each rule is held by real reports of the open blind sets, from different threads, and by the table's own data."""

from __future__ import annotations

import pytest

from gpudoctor.cmdline import Cmd
from gpudoctor.pasted.ask import Ask
from gpudoctor.pasted.supersede import SUPERSEDED, without_superseded
from tests.pasted.cli_json import asked, blind_case, check


def _ask(*argv: str, note: str = "", subject: str = "", codes: tuple[str, ...] = ()) -> Ask:
    return Ask(Cmd(argv, note=note), "why", codes=codes, subject=subject)


def test_the_gpu_list_gives_way_to_the_table_in_the_same_place_taking_its_codes():
    table, listing = _ask("nvidia-smi"), _ask("nvidia-smi", "-L", subject="cuda-no-device", codes=("x",))
    (kept,) = without_superseded([table, listing])
    assert (kept.command.argv, kept.codes, kept.subject) == (("nvidia-smi",), ("x",), "cuda-no-device")


def test_a_gpu_list_asked_for_the_uuids_stays_beside_the_table():
    asks = [_ask("nvidia-smi"), Ask(Cmd(("nvidia-smi", "-L")), "the GPUs and MIG devices, by index and UUID")]
    assert without_superseded(asks) == asks


def test_an_ask_in_another_place_is_not_held_by_it():
    asks = [_ask("nvidia-smi", note="on the host"), _ask("nvidia-smi", "-L", note="inside the job")]
    assert without_superseded(asks) == asks


def test_collect_env_gives_way_to_a_torch_build_probe_of_the_same_interpreter_only():
    env = _ask("/env/bin/python", "-m", "torch.utils.collect_env")
    probe = _ask("/env/bin/python", "-c", "import torch; print(torch.__version__, torch.version.cuda)")
    other = _ask("python3", "-c", "import torch; print(torch.__version__, torch.version.cuda)")
    assert [a.command.argv[:2] for a in without_superseded([env, probe])] == [("/env/bin/python", "-c")]
    assert without_superseded([env, other]) == [env, other]


def test_a_gpu_names_query_holds_the_list_and_one_without_names_does_not():
    listing = _ask("nvidia-smi", "-L")
    named = _ask("nvidia-smi", "--query-gpu=name,compute_cap", "--format=csv")
    unnamed = _ask("nvidia-smi", "--query-gpu=compute_cap", "--format=csv")
    assert without_superseded([listing, named]) == [named]
    assert without_superseded([listing, unnamed]) == [listing, unnamed]


def test_every_row_says_why():
    assert all(row.why for row in SUPERSEDED)


# (blind case, the ask given way, the ask that holds it and stays)
HELD = [
    # nvidia-smi -L beside the bare table: two threads (a numba report, a Ray one)
    ("plans10/cases/1025-", ["nvidia-smi", "-L"], ["nvidia-smi"]),
    ("plans15/cases/1519-", ["nvidia-smi", "-L"], ["nvidia-smi"]),
    # collect_env beside the web UI's own torch probe in its venv, and beside no-kernel-image's arch-list probe
    ("plans3/cases/233-", "collect_env", "torch.__version__"),
    ("plans5/cases/406-", "collect_env", "torch.__version__"),
]


def _has(doc: dict, what) -> bool:
    if isinstance(what, list):
        return what in asked(doc)
    return any(what in " ".join(argv) for argv in asked(doc))


@pytest.mark.parametrize(("case", "gone", "kept"), HELD)
def test_a_general_ask_gives_way_where_a_specific_one_answers_it(case, gone, kept):
    doc = check(blind_case(case))
    assert not _has(doc, gone)
    assert _has(doc, kept)


@pytest.mark.parametrize("case", ["plans12/cases/1244-", "plans6/cases/545-"])
def test_no_python_question_for_a_native_server_whose_own_asks_are_printed(case):
    # Ollama's reports: torch named only as the working comparison; Ollama's own log and GPU processes asked
    doc = check(blind_case(case))
    argvs = asked(doc)
    assert ["journalctl", "-u", "ollama", "--no-pager"] in argvs
    assert not any(a[0].startswith("python") for a in argvs)


def test_a_python_failure_beside_a_native_server_keeps_its_python_asks():
    # ComfyUI's no-kernel-image (torch's own warning shown), Ollama said to work on the same machine
    doc = check(blind_case("plans4/cases/357-"))
    assert any(a[0].endswith("python") and "torch.version.cuda" in a[-1] for a in asked(doc))


@pytest.mark.parametrize("case", ["plans17/cases/1704-", "plans18/cases/1832-"])
def test_no_tensorflow_probe_where_tensorflow_only_prints_its_startup_lines(case):
    # a Lightning job and a web UI that import TensorFlow beside torch: its start-up lines are no failure of theirs
    doc = check(blind_case(case))
    assert not any("tensorflow" in " ".join(a) for a in asked(doc))


def test_a_tensorflow_program_keeps_its_probe():
    # a TensorFlow program under WSL 2 whose GPU is not found: TensorFlow is the failing framework
    doc = check(blind_case("plans8/cases/814-"))
    assert any("tensorflow" in " ".join(a) for a in asked(doc))


def test_a_narrow_filter_gives_way_to_a_wider_one_of_the_same_listing_keeping_its_why():
    wide = Ask(Cmd(("ldconfig", "-p"), pipe=("grep", "-E", "libcudnn|libcublas|libcudart")), "the cache's CUDA libraries")
    narrow = Ask(Cmd(("ldconfig", "-p"), pipe=("grep", "-F", "libcublasLt")), "the copies of libcublasLt", codes=("c",))
    (kept,) = without_superseded([wide, narrow])
    assert (kept.command.pipe, kept.codes) == (wide.command.pipe, ("c",))
    assert kept.why.endswith("the copies of libcublasLt")


@pytest.mark.parametrize(
    ("wide", "narrow"),
    [
        (("grep", "-E", "libcudnn|libcublas"), ("grep", "-i", "libcublas")),  # case-blind narrow, case-bound wide
        (("grep", "-E", "^mm|^torch "), ("grep", "mmcv")),  # an anchor: more than a literal
        (("grep", "libcudnn"), ("grep", "libnccl")),
    ],
)
def test_a_filter_that_may_drop_a_line_covers_nothing(wide, narrow):
    asks = [Ask(Cmd(("ldconfig", "-p"), pipe=wide), "w"), Ask(Cmd(("ldconfig", "-p"), pipe=narrow), "n")]
    assert without_superseded(asks) == asks


def test_printenv_gives_way_to_an_env_filter_that_prints_its_line_in_the_same_place():
    env = Ask(Cmd(("env",), pipe=("grep", "-E", "VISIBLE_DEVICES|GPU_DEVICE_ORDINAL"), note="in the job"), "gpus")
    one = Ask(Cmd(("printenv", "CUDA_VISIBLE_DEVICES"), note="in the job"), "hidden?")
    other = Ask(Cmd(("printenv", "LD_LIBRARY_PATH"), note="in the job"), "path")
    elsewhere = Ask(Cmd(("printenv", "CUDA_VISIBLE_DEVICES")), "hidden?")
    assert [a.command.argv for a in without_superseded([env, one, other, elsewhere])] == [
        ("env",),
        ("printenv", "LD_LIBRARY_PATH"),
        ("printenv", "CUDA_VISIBLE_DEVICES"),
    ]


@pytest.mark.parametrize(
    ("case", "gone"),
    [
        # a Slurm job's GPU variables asked twice (kilosort's and dorado's threads)
        ("plans12/cases/1252-", ["printenv", "CUDA_VISIBLE_DEVICES"]),
        ("plans14/cases/1443-", ["printenv", "CUDA_VISIBLE_DEVICES"]),
        # the loader's cache filtered for one library beside its CUDA libraries (two rembg threads)
        ("plans17/cases/1741-", ["ldconfig", "-p"]),
        ("plans17/cases/1742-", ["ldconfig", "-p"]),
    ],
)
def test_an_ask_another_prints_whole_is_asked_once(case, gone):
    doc = check(blind_case(case))
    assert asked(doc).count(gone) == (0 if gone[0] == "printenv" else 1)


@pytest.mark.parametrize("case", ["plans9/cases/935-", "plans12/cases/1233-", "plans12/cases/1244-"])
def test_a_service_gpu_variable_is_read_from_its_unit_not_the_shell(case):
    # three Ollama threads run as a systemd service (its journal asked): the shell's CUDA_VISIBLE_DEVICES is not its own
    argvs = asked(check(blind_case(case)))
    assert ["systemctl", "show", "ollama", "--property=Environment"] in argvs
    assert ["printenv", "CUDA_VISIBLE_DEVICES"] not in argvs


def test_without_one_service_journal_the_shell_variable_stays():
    from gpudoctor.pasted.supersede import service_environment

    one = Ask(Cmd(("printenv", "CUDA_VISIBLE_DEVICES")), "hidden?")
    two = [Ask(Cmd(("journalctl", "-u", u, "--no-pager")), "log") for u in ("a", "b")]
    assert service_environment([one]) == [one]
    assert service_environment([*two, one]) == [*two, one]


def test_systemctl_show_and_status_only_read():
    from gpudoctor.planner.actions import classify as action

    assert action(Cmd(("systemctl", "show", "ollama", "--property=Environment"))).kind == "inspect"
    assert action(Cmd(("systemctl", "status", "ollama"))).kind == "inspect"
    assert action(Cmd(("systemctl", "restart", "ollama"))).kind == "service-restart"
