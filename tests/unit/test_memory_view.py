"""`gpudoctor memory`'s view: processes and memory per GPU and MIG instance, on machines built from real captures."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path

import pytest

from gpudoctor.facts import DriverFacts, Gpu, Process
from gpudoctor.host.live import LiveHost
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import load_snapshot, validate_snapshot
from gpudoctor.memory.gather import read_memory
from gpudoctor.memory.procinfo import read_processes
from gpudoctor.memory.render import view_to_json
from gpudoctor.memory.view import (
    build_view,
    frameworks_in_maps,
    frameworks_in_text,
    mig_from_smi_table,
    mig_from_smi_xml,
    processes_by_gpu,
)
from gpudoctor.parsers.nvidia_smi_text import parse_nvidia_smi_table
from gpudoctor.parsers.nvidia_smi_xml import parse_nvidia_smi_xml
from tests.conftest import fixture_text

MACHINES = Path(__file__).resolve().parents[1] / "machines"
MIB = 1024**2


def machine(slug: str) -> dict:
    return load_snapshot(str(MACHINES / slug / "snapshot.json"))


def view_of(slug: str, snapshot: dict | None = None):
    return read_memory(ReplayHost(snapshot or machine(slug)), 1.0)


def rows(view, gpu: int = 0):
    return [
        (h.pid, h.user, h.type, h.used_bytes // MIB if h.used_bytes is not None else None, h.framework, h.command)
        for h in view.gpus[gpu].holders
    ]


# --- whole machines ----------------------------------------------------------------------------------


def test_workstation_processes_users_commands_and_frameworks():
    view = view_of("rtx4000ada-tf-beside-torch-job")
    g = view.gpus[0]
    assert (g.name, g.total_bytes // MIB, g.used_bytes // MIB, g.free_bytes // MIB, g.source) == (
        "NVIDIA RTX 4000 SFF Ada Generation",
        20475,
        3534,
        16482,
        "nvidia-smi",
    )
    # Largest first; users from /proc/PID/status + /etc/passwd; command lines from NUL-separated cmdline.
    assert rows(view) == [
        (3190, "alice", "G", 451, None, "/usr/share/code/code --type=gpu-process"),
        (1842, "alice", "G", 410, None, "cosmic-comp"),
        (34626, None, "C+G", 183, None, None),
        (4937, "alice", "C", 160, "torch", "python train.py --epochs 90"),
    ]
    torch_job = g.holders[3]
    assert torch_job.framework_how == "maps: libtorch_cuda"
    assert g.holders[2].problem == "not recorded in the snapshot"
    assert g.held_bytes == (451 + 410 + 183 + 160) * MIB
    # 3534 MiB used, 1204 MiB by listed processes: the rest is explained by no process.
    assert g.unaccounted_bytes == (3534 - 1204) * MIB


def test_notebook_framework_from_maps_and_user_from_passwd():
    view = view_of("t4-jax-beside-tf-notebook")
    assert rows(view) == [
        (
            5762,
            "jovyan",
            "C",
            1005,
            "tensorflow",
            "/opt/conda/bin/python -m ipykernel_launcher -f /home/jovyan/.local/share/jupyter/runtime/kernel-8c1d2f.json",
        ),
        (675, None, "G", 22, None, None),
    ]
    assert view.gpus[0].holders[0].framework_how == "maps: libtensorflow_framework.so"


def test_root_processes_with_unreadable_maps_keep_user_and_command():
    view = view_of("h100-load-tf-jax-configured")
    assert rows(view) == [
        (11345, "root", "C", 15690, None, "./gpu_burn -m 20% 600"),
        (11327, "root", "C", 2566, None, "/root/tools/memhog --mib 2560"),
        (11328, "root", "C", 1542, None, "/root/tools/memhog --mib 1536"),
    ]
    g = view.gpus[0]
    assert (g.total_bytes // MIB, g.used_bytes // MIB, g.free_bytes // MIB) == (81559, 19818, 81559 - 19818)
    assert all(h.problem is None for h in g.holders)


def test_mig_instances_from_the_plain_table():
    view = view_of("h100-mig-four-instances")
    g = view.gpus[0]
    assert g.mig_enabled and g.holders == ()
    assert [
        (m.device, m.gi, m.ci, m.total_bytes // MIB, m.used_bytes // MIB, m.free_bytes // MIB, m.sm_count) for m in g.instances
    ] == [
        (0, 2, 0, 40448, 26, 40422, 60),
        (1, 3, 0, 20096, 17, 20079, 32),
        (2, 9, 0, 9984, 9, 9975, 16),
        (3, 10, 0, 9984, 9, 9975, 16),
    ]


def test_mig_instances_from_the_xml_of_an_existing_machine():
    view = view_of("a100-mig-two-instances")
    g = view.gpus[0]
    assert [(m.device, m.gi, m.ci, m.total_bytes // MIB, m.used_bytes // MIB, m.sm_count) for m in g.instances] == [
        (0, 1, 0, 19968, 19, 42),
        (1, 2, 0, 19968, 19, 42),
    ]


def test_process_placement_on_mig_instances_from_xml_and_table():
    xml = fixture_text("nvidia-smi-xml/a100-sxm4-40gb_driver-510.47.03_cuda-11.6_mig.xml")
    one = xml.replace(
        "<processes>\n        </processes>",
        "<processes><process_info><gpu_instance_id>2</gpu_instance_id><compute_instance_id>0</compute_instance_id>"
        "<pid>4242</pid><type>C</type><process_name>python</process_name><used_memory>5120 MiB</used_memory>"
        "</process_info></processes>",
    )
    assert one != xml
    details = mig_from_smi_xml(parse_nvidia_smi_xml(one))
    assert details.placement == {(0, 4242): (2, 0)}
    table = fixture_text("nvidia-smi-text/h100-80gb-hbm3_driver-590.48.01_cuda-13.1_mig-enabled.txt").replace(
        "|  No running processes found                                                             |",
        "|    0    3    0            7001      C   python                                  1200MiB |",
    )
    details = mig_from_smi_table(parse_nvidia_smi_table(table))
    assert details.placement == {(0, 7001): (3, 0)}
    # And the view shows the instance the process runs on.
    snap = machine("h100-mig-four-instances")
    snap["commands"]["nvidia-smi"]["stdout"] = table
    holder = view_of("h100-mig-four-instances", snap).gpus[0].holders[0]
    assert (holder.pid, holder.gi, holder.ci, holder.used_bytes // MIB) == (7001, 3, 0, 1200)


def test_a_machine_without_any_gpu_says_so_in_one_sentence():
    view = read_memory(ReplayHost(validate_snapshot({"format": "gpudoctor-snapshot/1"})), 1.0)
    assert view.gpus == ()
    assert view.problem == "No NVIDIA GPU could be read (NVML: library_not_found; nvidia-smi is not installed)."


def test_json_keeps_whole_command_lines():
    doc = view_to_json(view_of("t4-jax-beside-tf-notebook"))
    proc = doc["gpus"][0]["processes"][0]
    assert proc["command"].endswith("kernel-8c1d2f.json") and proc["framework"] == "tensorflow"
    assert doc["gpus"][0]["held_bytes"] == (1005 + 22) * MIB
    json.dumps(doc)


# --- NVML and nvidia-smi merged ------------------------------------------------------------------------


def test_nvml_and_smi_process_lists_are_merged():
    # NVML lists compute processes (with its figure), nvidia-smi graphics ones too and the exact type.
    nvml = Gpu(0, "GPU", uuid="GPU-1", processes=(Process(10, "/usr/bin/python3", 300 * MIB, "C"),), source="nvml")
    smi = Gpu(
        0,
        "GPU",
        uuid="GPU-1",
        processes=(Process(10, "python3", None, "C+G"), Process(11, "Xorg", 20 * MIB, "G")),
        source="nvidia-smi",
    )
    driver = DriverFacts("ok", None, None, None, None, "ok", None, None, None, None, None, (nvml,), (nvml,), (smi,))
    merged = processes_by_gpu(driver)[0]
    assert merged == (Process(10, "/usr/bin/python3", 300 * MIB, "C+G"), Process(11, "Xorg", 20 * MIB, "G"))
    view = build_view(driver)
    assert [(h.pid, h.type, h.used_bytes) for h in view.gpus[0].holders] == [(10, "C+G", 300 * MIB), (11, "G", 20 * MIB)]


# --- framework evidence --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("torchrun --nproc_per_node 8 train.py", ("torch",)),
        ("python -m torch.distributed.run train.py", ("torch",)),
        ("python torch_utils.py", ()),  # a file name is no evidence
        ("tensorboard --logdir runs", ()),  # TensorBoard holds no GPU memory of its own
        ("/usr/bin/tensorflow_model_server --port=8500", ("tensorflow",)),
        ("python -c import jax; jax.numpy.ones(3)", ("jax",)),
        ("python train.py", ()),
        (None, ()),
    ],
)
def test_frameworks_in_command_lines(text, expected):
    assert frameworks_in_text(text) == expected


def test_frameworks_in_maps():
    maps = (
        "7f00 r-xp 0 0:0 1 /venv/lib/python3.11/site-packages/jaxlib/xla_extension.so\n"
        "7f01 r-xp 0 0:0 2 /venv/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so\n"
    )
    assert frameworks_in_maps(maps) == (("torch", "jax"), "libtorch_cuda, xla_extension")
    assert frameworks_in_maps("7f r-xp /venv/jaxlib/_jax.cpython-312-x86_64-linux-gnu.so\n") == (("jax",), "jaxlib/_jax.")
    assert frameworks_in_maps("7f r-xp /usr/lib/libc.so.6\n") == ((), None)


def test_cupy_is_a_framework_that_holds_gpu_memory():
    """A CuPy process is named as one (the GPU-truth script starts one as a known holder)."""
    cupy_maps = "7f r-xp /venv/lib/python3.12/site-packages/cupy_backends/cuda/api/runtime.cpython-312-x86_64-linux-gnu.so\n"
    assert frameworks_in_maps(cupy_maps) == (("cupy",), "cupy_backends/cuda/")
    assert frameworks_in_text("python -c import cupy; cupy.ones(3)") == ("cupy",)
    assert frameworks_in_text("python cupy_bench.py") == ()  # a file name is no evidence


# --- /proc through the host seam -------------------------------------------------------------------------


def _proc_snapshot(files: dict, commands: dict | None = None) -> ReplayHost:
    return ReplayHost(validate_snapshot({"format": "gpudoctor-snapshot/1", "files": files, "commands": commands or {}}))


STATUS = "Name:\t{name}\nPid:\t{pid}\nUid:\t{uid}\t{uid}\t{uid}\t{uid}\n"


def test_cmdline_the_live_host_refuses_comes_from_ps():
    # A recorded NUL-separated cmdline is `binary`, as the live host reports it; ps gives the arguments.
    host = _proc_snapshot(
        {
            "/proc/4937/status": STATUS.format(name="python", pid=4937, uid=1001),
            "/proc/4937/cmdline": {"type": "file", "binary": True},
            "/proc/77/status": STATUS.format(name="python3", pid=77, uid=0),
            "/proc/77/cmdline": {"type": "file", "binary": True},
            "/etc/passwd": "root:x:0:0::/root:/bin/sh\n",
        },
        {
            "ps -ww -o pid=,args= -p 77,4937": {
                "rc": 0,
                "stdout": "   77 python3 -m jax_server\n 4937 python train.py\n",
                "stderr": "",
            }
        },
    )
    found = read_processes(host, {4937: "python", 77: "/usr/bin/python3"})
    assert (found[4937].user, found[4937].uid, found[4937].cmdline) == ("uid 1001", 1001, "python train.py")
    assert (found[77].user, found[77].cmdline, found[77].frameworks, found[77].framework_how) == (
        "root",
        "python3 -m jax_server",
        (),
        None,
    )


def test_a_pid_of_another_pid_namespace_borrows_nothing():
    host = _proc_snapshot(
        {
            "/proc/4937/status": STATUS.format(name="sshd", pid=4937, uid=0),
            "/proc/4937/cmdline": "sshd: /usr/sbin/sshd -D\x00",
            "/etc/passwd": "root:x:0:0::/root:/bin/sh\n",
        }
    )
    info = read_processes(host, {4937: "python"})[4937]
    assert (info.user, info.cmdline) == (None, None)
    assert info.problem == "PID 4937 here is 'sshd': the driver's PID is from another PID namespace"


def test_a_renamed_main_thread_is_still_the_same_process():
    # PyTorch names its main thread pt_main_thread: comm changes, argv[0] does not.
    host = _proc_snapshot(
        {
            "/proc/900/status": STATUS.format(name="pt_main_thread", pid=900, uid=0),
            "/proc/900/cmdline": "/usr/bin/python3\x00-m\x00torch.distributed.run\x00train.py\x00",
            "/proc/900/maps": {"error": "EACCES"},
        }
    )
    info = read_processes(host, {900: "/usr/bin/python3"})[900]
    assert info.problem is None and info.user == "uid 0"
    assert (info.frameworks, info.framework_how) == (("torch",), "command line")


def test_read_processes_on_this_live_machine():
    """The live host: this test's own process, read through /proc and ps."""
    pid = os.getpid()
    info = read_processes(LiveHost(), {pid: os.path.basename(os.path.realpath(__import__("sys").executable))})[pid]
    assert info.problem is None
    assert info.uid == os.getuid()
    # None only where ps is missing. This process's own argv (pytest's, or an xdist worker's `python -c ...` under
    # `make test`), as /proc holds it: empty words dropped, cut at the read's limit.
    argv = " ".join(word for word in __import__("sys").orig_argv if word)
    assert info.cmdline is None or (info.cmdline and argv.startswith(info.cmdline))


def test_view_of_an_unrecorded_machine_does_not_mutate_it():
    snap = machine("gt1030-desktop-memory-held")
    before = copy.deepcopy(snap)
    view = view_of("gt1030-desktop-memory-held", snap)
    assert snap == before
    assert len(view.gpus[0].holders) == 10
    assert {h.problem for h in view.gpus[0].holders} == {"not recorded in the snapshot"}
