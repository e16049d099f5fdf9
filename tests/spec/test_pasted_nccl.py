"""docs/findings/nccl-interface-unroutable.md, and docs/findings/container-network-isolated.md from NCCL's own WARN: a socket connect that failed (bootstrap or the
socket transport; the catalogue's nccl-socket-connect-failed) between ranks in docker containers on two hosts is the
bridge network's private address; on one host, or with the host's network, it is not."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.cmdline import Cmd, SetEnv
from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted
from tests.spec.machine import pasted_findings
from tests.spec.registry import FIRES, QUIET, states

EXAMPLES = Path(__file__).resolve().parents[2] / "tests" / "pasted" / "catalogue_examples"


def _codes(text: str) -> set[str]:
    return set(pasted_findings(text))


_CONNECT = "gpu-a:9412:9430 [0] misc/socket.cc:483 NCCL WARN socketStartConnect: Connect to 172.17.0.2<43127> failed : No route to host\n"
_TWO_HOSTS = "Two servers, each rank in its own docker container: torchrun --nnodes=2 --master_addr=192.168.1.10 train.py\n"


@states("container-network-isolated", FIRES)
def test_nccls_connect_warning_between_containers_on_two_hosts_is_the_bridge_network():
    assert "container-network-isolated" in _codes(_TWO_HOSTS + _CONNECT)


@states("container-network-isolated", QUIET)
def test_nccls_connect_warning_on_the_hosts_network_or_outside_containers_is_not_the_bridge():
    assert "container-network-isolated" not in _codes(_TWO_HOSTS + "Both run with --network=host.\n" + _CONNECT)
    bare = _TWO_HOSTS.replace(", each rank in its own docker container", "")
    codes = _codes(bare + _CONNECT)
    assert "container-network-isolated" not in codes and "pasted-error-unexplained" in codes


_VETH = (
    "ip-172-31-0-137:14605:14673 [0] NCCL INFO NET/Socket : Using [0]ens5:172.31.0.137<0> "
    "[1]veth75fa783:fe80::14ad:64ff:fe64:b31e%veth75fa783<0>\n"
)


def _finding(text: str):
    report = diagnose(ReplayHost(validate_snapshot(read_pasted([Source("t", text)]), "t")))
    return next((f for f in report.findings if f.code == "nccl-interface-unroutable"), None)


@states("nccl-interface-unroutable", FIRES)
def test_a_veth_or_link_local_interface_beside_a_real_one_sets_nccl_socket_ifname_to_the_real_one():
    connect = (
        "x:1:2 [0] include/socket.h:403 NCCL WARN Connect to fe80::c0a:1%veth75fa783<43127> failed : Network is unreachable\n"
    )
    for failure in (
        connect,
        "RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:911, unhandled system error, NCCL version 2.7.8\n",
        "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.\n",
    ):
        f = _finding(_VETH + failure)
        assert f is not None and f.remediation.component == "platform"
        env = [c for c in f.remediation.commands if isinstance(c, SetEnv)]
        assert [(c.name, c.value) for c in env] == [("NCCL_SOCKET_IFNAME", "ens5")]
        assert [tuple(c.argv) for c in f.remediation.commands if isinstance(c, Cmd)] == [("ip", "-brief", "address")]
    # a docker bridge (NCCL_SOCKET_IFNAME set to take it) beside two real interfaces: both real ones named
    text = "h:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.5<0> [1]docker0:172.17.0.1<0> [2]ib0:192.168.0.5<0>\n"
    f = _finding(text + connect)
    assert f is not None and [c.value for c in f.remediation.commands if isinstance(c, SetEnv)] == ["eth0,ib0"]


@states("nccl-interface-unroutable", FIRES)
def test_a_real_report_whose_nccl_log_stops_before_init_completed_is_judged_too():
    # pytorch/pytorch#68893: the INFO lines of a run whose ranks never connected (its WARN of libibverbs is NCCL
    # falling back to sockets, no failure)
    f = _finding((EXAMPLES / "pytorch-68893-nccl-socket-veth-fe80.txt").read_text(encoding="utf-8"))
    assert f is not None and [c.value for c in f.remediation.commands if isinstance(c, SetEnv)] == ["ens5"]


@states("nccl-interface-unroutable", QUIET)
def test_nccls_interfaces_in_a_run_that_connected_or_all_real_or_only_a_fallback_are_not_judged():
    # the same interfaces in a run whose communicator completed its initialisation: the ranks reached each other
    complete = (EXAMPLES / "nccl-1814-init-complete-then-ib-completion-error.txt").read_text(encoding="utf-8")
    assert _finding(_VETH + complete) is None
    # a run whose channels shown stay within one machine (shared memory here): NCCL's sockets carry none of them
    local = "u:1:2 [5] NCCL INFO Channel 20 : 5[5] -> 4[4] via SHM/direct/direct\n"
    assert _finding(_VETH + local) is None
    assert _finding(_VETH + local + "u:1:2 [0] NCCL INFO Channel 00 : 1[1e0] -> 0[1e0] [receive] via NET/Socket/0\n")
    connect = (
        "x:1:2 [0] misc/socket.cc:483 NCCL WARN socketStartConnect: Connect to 10.0.0.6<43127> failed : Connection refused\n"
    )
    # every interface real: another cause, left unexplained with the interfaces asked
    assert _finding("h:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.5<0> [1]eth1:10.1.0.5<0>\n" + connect) is None
    # NCCL fell back to lo alone: no other interface to name
    assert _finding("h:1:1 [0] NCCL INFO NET/Socket : Using [0]lo:127.0.0.1<0>\n" + connect) is None
