"""A distributed job over NCCL that the reporter says hangs (gpudoctor.checks.symptoms: nccl-hang).

NCCL does not fail when ranks cannot reach each other or a transport stalls: it waits. The paste then shows the
reporter's word that it hangs, beside NCCL's INFO lines or a launcher's start, and what is open depends on where the
ranks run. Across nodes: the TCP connections NCCL opens between them, and how many ranks each node's launcher starts;
on one node: PCIe peer-to-peer that ACS or the IOMMU blocks, or too little shared memory. The asks read those (NCCL's
log to the hang from every rank, a TCP connection on a high port, the tasks Slurm starts; the topology, ACS, a rerun
without P2P), and not the driver's or the framework's versions: the ranks reached NCCL on their GPUs. Real reports of
the blind sets (cited by path) and public threads (URL beside the text); each with a quiet twin.
"""

from __future__ import annotations

from gpudoctor.parsers.catalogue import match
from tests.pasted import cli_json

UNEXPLAINED = "pasted-error-unexplained"
_case, _check, _paste, _asked = cli_json.blind_case, cli_json.check, cli_json.paste, cli_json.asked

# What reads the driver or the framework's build: the ranks reached NCCL on their GPUs, so none of it decides a hang.
_STACK = (["nvidia-smi"], ["nvidia-smi", "-L"], ["python3", "-m", "torch.utils.collect_env"], ["python3", "-m", "pip", "list"])
_LISTENER = ["python3", "-m", "http.server", "45678"]
_TOPOLOGY = ["nvidia-smi", "topo", "-m"]


def _errors(doc: dict, kind: str) -> list[dict]:
    return [dict(e["values"]) for e in doc["facts"]["pasted"]["errors"] if e["kind"] == kind]


def _hang_asks(doc: dict) -> list[list[str]]:
    return [a["argv"] for a in doc["pasted"]["ask_for"] if a["why"].endswith("(nccl-hang)")]


def _unexplained_warning(doc: dict) -> None:
    blocking = [f["code"] for f in doc["findings"] if f["severity"] in ("warning", "error", "critical")]
    assert blocking == [UNEXPLAINED]


# -- across nodes ----------------------------------------------------------------------------------------------------


def test_two_hosts_in_nccls_own_log_are_two_nodes_and_the_network_between_them_is_asked():
    # tests/blind/plans13/cases/1310-*: a two-node PyTorch job on a cloud Slurm cluster, "Training get stuck due to
    # NCCL", NCCL's INFO lines of both hosts (their names in NCCL's own prefix, sockets over eth0), then nothing
    doc = _check(_case("plans13/cases/1310-nccl447"))
    (hosts,) = _errors(doc, "ranks-on-hosts")
    assert hosts["hosts"] == "slurm-train-compute-0-0,slurm-train-compute-0-1"
    _unexplained_warning(doc)
    asked = _asked(doc)
    assert ["export", "NCCL_DEBUG=INFO", "NCCL_DEBUG_SUBSYS=INIT,NET"] in asked  # then the job again, on every node
    assert _LISTENER in asked
    # the connection test names the first host the log shows, no placeholder left
    (connect,) = (a for a in asked if a[:2] == ["python3", "-c"])
    assert connect[-1] == "slurm-train-compute-0-0" and "create_connection" in connect[2]
    assert next(a for a in asked if a[0] == "srun")[:3] == ["srun", "bash", "-c"]  # the tasks each node starts
    assert _TOPOLOGY not in asked  # a one-node question
    assert not [a for a in asked if a in _STACK]


def test_only_one_nodes_ranks_joining_asks_for_the_job_script_and_the_tasks():
    # tests/blind/plans13/cases/1315-*: Lightning on two Slurm nodes prints MEMBER 1/8 to 4/8 and waits ("multi-node
    # training using SLURM ... it freezes during `ddp` setup"): which tasks each node starts is the question
    doc = _check(_case("plans13/cases/1315-pl8707"))
    assert _errors(doc, "ranks-on-hosts") == [{"said": "multi-node"}]
    _unexplained_warning(doc)
    asks = {tuple(a["argv"]): a["why"] for a in doc["pasted"]["ask_for"]}
    # one listing of the job ids answers both commands that need one: the allocation and the stored batch script
    assert "`scontrol show job <job-id>`" in asks[("printenv", "SLURM_JOB_ID")]
    assert "`scontrol write batch_script <job-id> -`" in asks[("printenv", "SLURM_JOB_ID")]
    srun = next(a for a in asks if a[0] == "srun")
    assert "SLURM_NTASKS=$SLURM_NTASKS" in srun[3] and "SLURM_PROCID=$SLURM_PROCID" in srun[3]
    assert not [a for a in asks if list(a) in _STACK]


def test_a_multi_node_hang_told_in_words_public_thread(tmp_path):
    # NVIDIA/nccl#238 (https://github.com/NVIDIA/nccl/issues/238), the report's words (its logs are pictures): the
    # nodes are told, not shown; no scheduler, so no Slurm asks
    doc = _paste(
        tmp_path,
        "When I run nccl 2.4.2 across multiple nodes, the program hangs randomly. `nvidia-smi` shows the GPU utility "
        "is always 100%.\n",
    )
    assert _errors(doc, "ranks-on-hosts") == [{"said": "multiple nodes"}]
    _unexplained_warning(doc)
    hang = _hang_asks(doc)
    assert ["export", "NCCL_DEBUG=INFO", "NCCL_DEBUG_SUBSYS=INIT,NET"] in hang and _LISTENER in hang
    assert not [a for a in hang if a[0] in ("srun", "scontrol")]
    assert ["hostname"] in hang  # the listener's node, named for the connection test that needs it
    assert _TOPOLOGY not in hang


def test_one_hosts_ranks_in_nccls_log_are_one_node(tmp_path):
    # Quiet twin: NVIDIA/nccl#857 (https://github.com/NVIDIA/nccl/issues/857), a comment's NCCL log: four ranks of one
    # host "ai" (their pids differ, the host does not) are not two nodes
    doc = _paste(
        tmp_path,
        "ai:480850:480850 [0] NCCL INFO Bootstrap : Using eth0:162.30.2.40<0>\n"
        "ai:480850:480850 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so), using internal implementation\n"
        "ai:480850:480850 [0] misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]\n"
        "ai:480852:480852 [2] NCCL INFO Bootstrap : Using eth0:162.30.2.40<0>\n"
        "ai:480851:480851 [1] NCCL INFO NET/Socket : Using [0]eth0:162.30.2.40<0>\n",
    )
    assert _errors(doc, "ranks-on-hosts") == []


# -- on one node -----------------------------------------------------------------------------------------------------


def test_a_one_node_hang_asks_the_topology_acs_and_a_run_without_p2p():
    # tests/blind/plans13/cases/1320-*: "NCCL hangs during initialization ... on a single node equipped with multiple
    # GPUs (8 NVIDIA L40 GPUs)", one NCCL INFO line shown
    doc = _check(_case("plans13/cases/1320-sglang4054"))
    assert _errors(doc, "ranks-on-hosts") == []
    _unexplained_warning(doc)
    hang = _hang_asks(doc)
    assert hang[:2] == [["export", "NCCL_DEBUG=INFO"], _TOPOLOGY]
    assert ["sudo", "lspci", "-vvv"] in hang  # | grep -i ACSCtl
    assert ["export", "NCCL_P2P_DISABLE=1", "NCCL_DEBUG=INFO"] in hang and ["df", "-h", "/dev/shm"] in hang
    assert _LISTENER not in hang  # a question between nodes
    assert not [a for a in _asked(doc) if a in _STACK]


def test_a_freeze_that_nccl_p2p_disable_cures_is_a_job_over_nccl():
    # tests/blind/plans7/cases/609-*: "the model "freeze"(stuck) when using 4 or more GPUs ... works by setting the
    # variable NCCL_P2P_DISABLE =1": the sentence names no NCCL word but its variable, which the catalogue reads
    doc = _check(_case("plans7/cases/609-nccl631"))
    assert _errors(doc, "nccl-variable-said") == [{"entry": "nccl-transport-variable-said", "name": "P2P_DISABLE", "value": "1"}]
    _unexplained_warning(doc)
    assert _TOPOLOGY in _hang_asks(doc) and ["sudo", "lspci", "-vvv"] in _hang_asks(doc)


def test_a_hang_of_a_program_without_nccl_keeps_the_general_asks(tmp_path):
    # Quiet twin: a single-GPU program that freezes (no NCCL, no distributed run): not this family; the driver and
    # the GPUs it sees are still the first question
    doc = _paste(tmp_path, "My PyTorch training freezes after a few minutes on the GPU, no error is printed.\n")
    _unexplained_warning(doc)
    assert _hang_asks(doc) == []
    assert ["nvidia-smi"] in _asked(doc)


def test_an_nccl_failure_shown_is_not_a_hang(tmp_path):
    # Quiet twin: NCCL's own WARN of a failed connect beside its INFO lines: the failure is shown, NCCL did not wait
    doc = _paste(
        tmp_path,
        "node1:100:100 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n"
        "node1:100:120 [0] misc/socket.cc:456 NCCL WARN Net : Connect to 10.0.0.2<43210> failed : Connection refused\n",
    )
    assert _hang_asks(doc) == []


def _variables(text: str) -> list[tuple[str, str]]:
    return [(dict(e.values)["name"], dict(e.values)["value"]) for e in match(text) if e.kind == "nccl-variable-said"]


def test_nccl_transport_variables_are_read_and_other_nccl_variables_are_not():
    assert _variables("export NCCL_P2P_DISABLE=1\n") == [("P2P_DISABLE", "1")]
    assert _variables("NCCL_SHM_DISABLE = 1 python train.py\n") == [("SHM_DISABLE", "1")]
    assert _variables("NCCL_P2P_LEVEL='NVL' torchrun train.py\n") == [("P2P_LEVEL", "NVL")]
    # quiet: the debug level and the interface are not transport switches (NCCL_SOCKET_IFNAME has its own entry)
    assert _variables("NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=eth0 torchrun train.py\n") == []
