"""docs/findings/container-network-isolated.md, from NCCL's own WARN: a socket connect that failed (bootstrap or the
socket transport; the catalogue's nccl-socket-connect-failed) between ranks in docker containers on two hosts is the
bridge network's private address; on one host, or with the host's network, it is not."""

from __future__ import annotations

from gpudoctor.doctor import diagnose
from gpudoctor.host.replay import ReplayHost
from gpudoctor.host.snapshot import validate_snapshot
from gpudoctor.pasted import Source, read_pasted
from tests.spec.registry import FIRES, QUIET, states


def _codes(text: str) -> set[str]:
    report = diagnose(ReplayHost(validate_snapshot(read_pasted([Source("t", text)]), "t")))
    assert not report.internal_errors, report.internal_errors
    return {f.code for f in report.findings}


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
