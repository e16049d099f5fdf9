"""Ask the host for everything the memory view needs: NVML, nvidia-smi, and /proc for each process.

Only the driver probes run (not the whole doctor): `--watch` repeats this every few seconds.
"""

from __future__ import annotations

from gpudoctor.errors import ParseError
from gpudoctor.host import Host
from gpudoctor.memory.view import MemoryView, MigDetails, build_view, merge_mig, mig_from_nvml, processes_by_gpu


def read_memory(host: Host, timeout_s: float = 5.0, with_processes: bool = True) -> MemoryView:
    from gpudoctor.probes.driver import merge_driver, run_smi

    state = host.nvml(timeout_s)
    smi = run_smi(host, timeout_s)
    driver = merge_driver(state, smi)
    mig = merge_mig(_smi_mig(smi), mig_from_nvml(state))
    infos = {}
    if with_processes:
        from gpudoctor.memory.procinfo import read_processes

        names = {p.pid: p.name for procs in processes_by_gpu(driver).values() for p in procs}
        infos = read_processes(host, names, timeout_s)
    return build_view(driver, mig, infos, host.mode)


def _smi_mig(smi: dict) -> MigDetails:
    """MIG instances and process placement from the nvidia-smi output run_smi already parsed once.

    run_smi keeps only what DriverFacts holds; parsing its text again is cheaper than running it twice.
    """
    result = smi.get("result")
    if smi.get("status") != "ok" or result is None:
        return MigDetails()
    try:
        if "-x" in result.argv:
            from gpudoctor.memory.view import mig_from_smi_xml
            from gpudoctor.parsers.nvidia_smi_xml import parse_nvidia_smi_xml

            return mig_from_smi_xml(parse_nvidia_smi_xml(result.stdout))
        from gpudoctor.memory.view import mig_from_smi_table
        from gpudoctor.parsers.nvidia_smi_text import parse_nvidia_smi_table

        return mig_from_smi_table(parse_nvidia_smi_table(result.stdout))
    except ParseError:
        return MigDetails()
