"""Parse plain `nvidia-smi` tables (440-era to 610-era layouts, Linux, Windows WDDM, MIG), `nvidia-smi --version` and `nvidia-smi -L`.

The 610-series header says "KMD Version" / "CUDA UMD Version" instead of "Driver Version" / "CUDA Version".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpudoctor.errors import ParseError
from gpudoctor.parsers._common import clean, int_with_unit, require_text, yes_no


@dataclass(frozen=True)
class SmiTableGpu:
    """One GPU block of the table (two lines before the MIG era, three since)."""

    index: int
    name: str  # as printed: may be cut to "NVIDIA GeForce RTX 2080 ..."
    name_truncated: bool
    persistence_mode: bool | None  # Linux "Persistence-M" column
    driver_model: str | None  # Windows "Driver-Model" (or old "TCC/WDDM") column: "WDDM", "TCC"...
    bus_id: str | None
    display_active: bool | None  # "Disp.A"
    ecc: str | None  # "Volatile Uncorr. ECC" cell as printed: "0", "On" (MIG), None for N/A
    fan_percent: int | None
    temperature_c: int | None
    performance_state: str | None
    power_draw_w: int | None
    power_cap_w: int | None
    memory_used_mib: int | None
    memory_total_mib: int | None
    gpu_util_percent: int | None
    compute_mode: str | None
    # As printed, e.g. "Enabled*": the star means that mode takes effect after a GPU reset.
    mig_mode: str | None
    mig_mode_pending: bool


@dataclass(frozen=True)
class SmiTableMigDevice:
    """One row pair of the "MIG devices:" table."""

    gpu_index: int
    gpu_instance_id: int | None
    compute_instance_id: int | None
    mig_device_index: int | None
    memory_used_mib: int | None
    memory_total_mib: int | None
    bar1_used_mib: int | None
    bar1_total_mib: int | None
    sm_count: int | None


@dataclass(frozen=True)
class SmiTableProcess:
    """One row of the "Processes:" table; name is as printed (may start with "...")."""

    gpu_index: int
    gpu_instance_id: int | None
    compute_instance_id: int | None
    pid: int
    type: str
    name: str
    used_memory_mib: int | None  # None for "N/A" (Windows WDDM)


@dataclass(frozen=True)
class SmiTable:
    """The whole `nvidia-smi` default output."""

    nvidia_smi_version: str | None
    driver_version: str | None  # "Driver Version", or "KMD Version" on the 610+ header
    driver_version_label: str | None  # which label the header used
    cuda_version: str | None  # "CUDA Version" / "CUDA UMD Version"; None for "N/A"
    timestamp: str | None
    gpus: tuple[SmiTableGpu, ...]
    mig_devices: tuple[SmiTableMigDevice, ...]
    processes: tuple[SmiTableProcess, ...]
    # Whether the text reached the part that lists MIG devices: its own "MIG devices:" section (printed, with "No MIG
    # devices found" where none exist, when MIG is on), or the "Processes:" section printed after it. A paste cut
    # before both says nothing about the MIG devices.
    mig_shown: bool = True


@dataclass(frozen=True)
class SmiVersion:
    """`nvidia-smi --version`."""

    nvidia_smi_version: str | None
    nvml_version: str | None
    driver_version: str | None
    cuda_version: str | None


@dataclass(frozen=True)
class SmiListMigDevice:
    """An indented "MIG 1g.6gb Device 0: (UUID: MIG-...)" line of `nvidia-smi -L`."""

    index: int
    profile: str | None  # e.g. "2g.12gb"
    uuid: str | None


@dataclass(frozen=True)
class SmiListGpu:
    """A "GPU 0: NAME (UUID: GPU-...)" line of `nvidia-smi -L` and its MIG devices."""

    index: int
    name: str
    uuid: str | None
    mig_devices: tuple[SmiListMigDevice, ...]


@dataclass(frozen=True)
class SmiList:
    """`nvidia-smi -L`; gpus is empty for "No devices found."."""

    gpus: tuple[SmiListGpu, ...]


_HEADER_RE = re.compile(r"NVIDIA-SMI\s+(?P<smi>\d[\w.\-]*)")
# A value ends at the table's bar, a space, or the backtick or quote of a header pasted as inline code (`NVIDIA-SMI ...
# CUDA Version: 12.0`), which belongs to the markup, not to the version.
_DRIVER_RE = re.compile(r"(?P<label>Driver Version|KMD Version)\s*:\s*(?P<value>[^\s|`'\"]+)")
_CUDA_RE = re.compile(r"CUDA(?: UMD)? Version\s*:\s*(?P<value>[^\s|`'\"]+)")
_TIMESTAMP_RE = re.compile(r"^\s*[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}\s*$")
_RULE_RE = re.compile(r"^\s*[+|][=\-+|]+\s*$")
# Cell patterns are anchored and alternate distinct character classes, so they run in
# linear time; free-text parts (names) are cut out with string operations instead.
_FAN_RE = re.compile(r"^(?:N/A|ERR!|\d+%)$")
_TEMP_RE = re.compile(r"^(?:N/A|ERR!|\d+C)$")
_PERF_RE = re.compile(r"^(?:P\d+|N/A|ERR!)$")
_USAGE_RE = re.compile(r"^\s*(?P<used>\d+)\s*MiB\s*/\s*(?P<total>\d+)\s*MiB\s*$")
_POWER_RE = re.compile(r"^(?P<draw>N/A|ERR!|\d+W)/(?P<cap>N/A|ERR!|\d+W)$")
_PROCESS_HEAD_RE = re.compile(
    r"^\|\s*(?P<gpu>\d+)\s+(?:(?P<gi>\d+|N/A)\s+(?P<ci>\d+|N/A)\s+)?(?P<pid>\d+)\s+"
    r"(?P<type>[CGM](?:\+[CGM])*)\s"
)
_MIG_IDS_RE = re.compile(r"^\s*(?P<gpu>\d+)\s+(?P<gi>\d+|N/A)\s+(?P<ci>\d+|N/A)\s+(?P<dev>\d+|N/A)\s*$")


# Real table lines are under 130 characters.  Longer ones are replaced by a marker that
# matches nothing, which also keeps the row patterns (lazy name + padding) from going
# quadratic on hostile input.
_MAX_LINE_CHARS = 1024
_OVERLONG = "\x00overlong line\x00"


def _lines(text: str) -> list[str]:
    return [
        line if len(line) <= _MAX_LINE_CHARS else _OVERLONG for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    ]


def _cells(line: str) -> list[str]:
    """Cells of a "| a | b |" row, without the empty strings outside the outer bars."""
    parts = line.strip().split("|")
    if len(parts) >= 2 and parts[0] == "" and parts[-1] == "":
        return parts[1:-1]
    return parts


def _split_blocks(lines: list[str]) -> list[list[str]]:
    """Group table rows into the blocks that rules (+----+, |====|) separate."""
    blocks: list[list[str]] = []
    current: list[str] = []
    for line in lines:
        if _RULE_RE.match(line):
            if current:
                blocks.append(current)
            current = []
        else:
            current.append(line)
    if current:
        blocks.append(current)
    return blocks


def _section_rows(lines: list[str], start: int) -> tuple[list[str], int]:
    """Rows after the "|====|" line that follows `start`, up to the end of the boxed section."""
    i = start
    while i < len(lines) and not lines[i].lstrip().startswith("|="):
        if not lines[i].strip():
            return [], i  # the section ended (excerpt) before its header was complete
        i += 1
    i += 1
    rows = []
    while i < len(lines):
        stripped = lines[i].strip()
        if not stripped or not (stripped.startswith("|") or stripped.startswith("+")):
            break
        rows.append(lines[i])
        i += 1
    return rows, i


def _index_name_mode(cell: str) -> tuple[int, str, str] | None:
    """ "   0  NVIDIA GeForce RTX 2080 ...  WDDM  " -> (0, "NVIDIA GeForce RTX 2080 ...", "WDDM")."""
    text = cell.strip()
    index, _, rest = text.partition(" ")
    if not (index.isascii() and index.isdigit()) or len(index) > 6:
        return None
    rest = rest.strip()
    name, _, mode = rest.rpartition(" ")
    name = name.rstrip()
    if not name or not mode:
        return None
    return int(index), name, mode


def _gpu_from_block(block: list[str], driver_model_column: bool) -> SmiTableGpu | None:
    first = _cells(block[0])
    if len(first) < 3:
        return None
    ident = _index_name_mode(first[0])
    if ident is None:
        return None
    index, name, mode = ident
    bus_disp = first[1].split()
    stats = _cells(block[1]) if len(block) > 1 else []
    fan_temp_perf = stats[0].split() if stats else []
    fan = temp = perf = None
    power = None
    if (
        len(fan_temp_perf) >= 3
        and _FAN_RE.match(fan_temp_perf[0])
        and _TEMP_RE.match(fan_temp_perf[1])
        and _PERF_RE.match(fan_temp_perf[2])
    ):
        fan, temp, perf = fan_temp_perf[:3]
        # "59W /  500W" -> "59W/500W"
        power = _POWER_RE.match("".join(fan_temp_perf[3:]))
    usage = _USAGE_RE.match(stats[1]) if len(stats) >= 2 else None
    util = mode_text = None
    if len(stats) >= 3:
        util_cell = stats[2].split(None, 1)
        if util_cell:
            util = util_cell[0]
            mode_text = util_cell[1] if len(util_cell) > 1 else None
    mig_raw = None
    if len(block) > 2:
        third = _cells(block[2])
        if len(third) >= 3:
            mig_raw = clean(third[2])
    return SmiTableGpu(
        index=index,
        name=name,
        name_truncated=name.endswith("..."),
        persistence_mode=None if driver_model_column else yes_no(mode),
        driver_model=clean(mode) if driver_model_column else None,
        bus_id=bus_disp[0] if bus_disp else None,
        display_active=yes_no(bus_disp[1]) if len(bus_disp) > 1 else None,
        ecc=clean(first[2]),
        fan_percent=int_with_unit(fan, "%"),
        temperature_c=int_with_unit(temp, "C"),
        performance_state=clean(perf),
        power_draw_w=int_with_unit(power.group("draw"), "W") if power else None,
        power_cap_w=int_with_unit(power.group("cap"), "W") if power else None,
        memory_used_mib=int(usage.group("used")) if usage else None,
        memory_total_mib=int(usage.group("total")) if usage else None,
        gpu_util_percent=int_with_unit(util, "%"),
        compute_mode=clean(mode_text),
        mig_mode=mig_raw,
        mig_mode_pending=mig_raw is not None and mig_raw.endswith("*"),
    )


def _mig_from_block(block: list[str]) -> SmiTableMigDevice | None:
    first = _cells(block[0])
    if len(first) < 2:
        return None
    ids = _MIG_IDS_RE.match(first[0])
    if ids is None:
        return None
    usage = _USAGE_RE.match(first[1])
    bar1 = None
    if len(block) > 1:
        second = _cells(block[1])
        if len(second) >= 2:
            bar1 = _USAGE_RE.match(second[1])
    sm = None
    if len(first) >= 3 and first[2].split():
        sm = int_with_unit(first[2].split()[0])
    return SmiTableMigDevice(
        gpu_index=int(ids.group("gpu")),
        gpu_instance_id=int_with_unit(ids.group("gi")),
        compute_instance_id=int_with_unit(ids.group("ci")),
        mig_device_index=int_with_unit(ids.group("dev")),
        memory_used_mib=int(usage.group("used")) if usage else None,
        memory_total_mib=int(usage.group("total")) if usage else None,
        bar1_used_mib=int(bar1.group("used")) if bar1 else None,
        bar1_total_mib=int(bar1.group("total")) if bar1 else None,
        sm_count=sm,
    )


def _process_from_line(line: str) -> SmiTableProcess | None:
    row = line.strip()
    head = _PROCESS_HEAD_RE.match(row)
    if head is None or not row.endswith("|"):
        return None
    # What is left is "NAME   MEMORY": memory is the last token, "123MiB" or "N/A".
    rest = row[head.end() : -1].strip()
    name, _, memory = rest.rpartition(" ")
    if memory == "MiB":  # tolerate "123 MiB"
        name, _, number = name.rstrip().rpartition(" ")
        memory = number + "MiB"
    name = name.strip()
    if not name:
        return None
    if memory == "N/A":
        used = None
    elif memory.endswith("MiB") and memory[:-3].isascii() and memory[:-3].isdigit():
        used = int(memory[:-3])
    else:
        return None
    return SmiTableProcess(
        gpu_index=int(head.group("gpu")),
        gpu_instance_id=int_with_unit(head.group("gi")),
        compute_instance_id=int_with_unit(head.group("ci")),
        pid=int(head.group("pid")),
        type=head.group("type"),
        name=name,
        used_memory_mib=used,
    )


def parse_nvidia_smi_table(text: str) -> SmiTable:
    """Parse the default `nvidia-smi` output.  Raises ParseError without an "NVIDIA-SMI <version>" header.

    Error output such as "NVIDIA-SMI has failed because..." has no version and is refused
    here; hand it to error_texts.classify_error_text instead.
    """
    require_text(text, "nvidia-smi table")
    lines = _lines(text)
    header_index = None
    header = None
    for i, line in enumerate(lines):
        header = _HEADER_RE.search(line)
        if header is not None:
            header_index = i
            break
    if header is None or header_index is None:
        raise ParseError("not nvidia-smi table output: no 'NVIDIA-SMI <version>' header line")
    header_line = lines[header_index]
    driver = _DRIVER_RE.search(header_line)
    cuda = _CUDA_RE.search(header_line)
    timestamp = None
    for line in lines[:header_index]:
        if _TIMESTAMP_RE.match(line):
            timestamp = line.strip()

    gpus: list[SmiTableGpu] = []
    mig_devices: list[SmiTableMigDevice] = []
    processes: list[SmiTableProcess] = []
    mig_shown = False
    i = header_index + 1
    while i < len(lines):
        line = lines[i]
        if "Bus-Id" in line and not gpus:
            # "Driver-Model" (Windows, 525+) or "TCC/WDDM" (older Windows) replaces Persistence-M.
            driver_model_column = "Driver-Model" in line or "TCC/WDDM" in line
            rows, i = _section_rows(lines, i)
            for block in _split_blocks(rows):
                gpu = _gpu_from_block(block, driver_model_column)
                if gpu is not None:
                    gpus.append(gpu)
            continue
        if "MIG devices:" in line:
            mig_shown = True
            rows, i = _section_rows(lines, i + 1)
            for block in _split_blocks(rows):
                device = _mig_from_block(block)
                if device is not None:
                    mig_devices.append(device)
            continue
        if "Processes:" in line:
            mig_shown = True
            rows, i = _section_rows(lines, i + 1)
            for row in rows:
                process = _process_from_line(row)
                if process is not None:
                    processes.append(process)
            continue
        i += 1

    return SmiTable(
        nvidia_smi_version=header.group("smi"),
        driver_version=driver.group("value") if driver else None,
        driver_version_label=driver.group("label") if driver else None,
        cuda_version=clean(cuda.group("value")) if cuda else None,
        timestamp=timestamp,
        gpus=tuple(gpus),
        mig_devices=tuple(mig_devices),
        processes=tuple(processes),
        mig_shown=mig_shown,
    )


_VERSION_KEYS = {
    "nvidia-smi version": "nvidia_smi_version",
    "nvml version": "nvml_version",
    "driver version": "driver_version",
    "kmd version": "driver_version",
    "cuda version": "cuda_version",
    "cuda umd version": "cuda_version",
}


def parse_nvidia_smi_version(text: str) -> SmiVersion:
    """Parse `nvidia-smi --version` ("NVIDIA-SMI version  : 590.48.01" lines)."""
    require_text(text, "nvidia-smi --version")
    found: dict[str, str | None] = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if not sep:
            continue
        field = _VERSION_KEYS.get(" ".join(key.split()).lower())
        if field is not None and field not in found:
            found[field] = clean(value)
    if not found:
        raise ParseError("not `nvidia-smi --version` output: no 'NVIDIA-SMI version :' style lines")
    return SmiVersion(
        nvidia_smi_version=found.get("nvidia_smi_version"),
        nvml_version=found.get("nvml_version"),
        driver_version=found.get("driver_version"),
        cuda_version=found.get("cuda_version"),
    )


_LIST_GPU_RE = re.compile(r"^GPU\s+(?P<index>\d+):\s")
_LIST_MIG_RE = re.compile(r"^\s+MIG\s+(?:(?P<profile>\S+)\s+)?Device\s+(?P<index>\d+):")


def _name_and_uuid(rest: str) -> tuple[str, str | None]:
    """ "NVIDIA A30 (UUID: GPU-1e44...)" -> ("NVIDIA A30", "GPU-1e44...")."""
    rest = rest.strip()
    start = rest.rfind("(UUID:")
    if start < 0 or not rest.endswith(")"):
        return rest, None
    return rest[:start].rstrip(), rest[start + len("(UUID:") : -1].strip() or None


def parse_nvidia_smi_list(text: str) -> SmiList:
    """Parse `nvidia-smi -L`, including the indented MIG device lines under a GPU."""
    require_text(text, "nvidia-smi -L")
    gpus: list[tuple[int, str, str | None, list[SmiListMigDevice]]] = []
    saw_no_devices = False
    for line in _lines(text):
        if not line.strip():
            continue
        gpu = _LIST_GPU_RE.match(line)
        if gpu is not None:
            name, uuid = _name_and_uuid(line[gpu.end() :])
            if name:
                gpus.append((int(gpu.group("index")), name, uuid, []))
                continue
        mig = _LIST_MIG_RE.match(line)
        if mig is not None and gpus:
            _, uuid = _name_and_uuid(line[mig.end() :])
            gpus[-1][3].append(SmiListMigDevice(index=int(mig.group("index")), profile=mig.group("profile"), uuid=uuid))
            continue
        if line.strip().rstrip(".").lower() in ("no devices found", "no devices were found"):
            saw_no_devices = True
    if not gpus and not saw_no_devices:
        raise ParseError("not `nvidia-smi -L` output: no 'GPU N: NAME (UUID: ...)' lines")
    return SmiList(gpus=tuple(SmiListGpu(index=i, name=n, uuid=u, mig_devices=tuple(m)) for i, n, u, m in gpus))
