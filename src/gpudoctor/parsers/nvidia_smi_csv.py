"""Parse `nvidia-smi --query-gpu=... --format=csv` output (with or without units, or `noheader` given the field list).

Header fields may carry a unit ("memory.total [MiB]"); values then do too ("7979 MiB") unless `nounits` was used.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence

from gpudoctor.errors import ParseError
from gpudoctor.parsers._common import clean, require_text

# Units nvidia-smi puts in CSV headers.  Any other bracketed suffix is split off the
# same way; this set only documents what real captures showed.
KNOWN_UNITS = frozenset({"MiB", "KiB", "GiB", "%", "W", "MHz", "us", "ms", "C", "V", "mV", "KB/s"})


def split_csv_header(field: str) -> tuple[str, str | None]:
    """ "memory.total [MiB]" -> ("memory.total", "MiB"); "name" -> ("name", None)."""
    field = field.strip()
    if field.endswith("]"):
        start = field.rfind("[")
        unit = field[start + 1 : -1].strip() if start > 0 else ""
        name = field[:start].rstrip() if start > 0 else ""
        if unit and name and "]" not in unit:
            return name, unit
    return field, None


def _strip_unit(value: str | None, unit: str | None) -> str | None:
    if value is None or unit is None:
        return value
    if value.endswith(unit):
        number = value[: -len(unit)].rstrip()
        if number:
            return number
    return value


def parse_nvidia_smi_csv(text: str, fields: Sequence[str] | None = None) -> tuple[dict[str, str | None], ...]:
    """One dict per GPU row.

    Each dict maps the raw header ("memory.total [MiB]") to the value as printed
    ("7979 MiB") and, for fields with a unit, also the bare name ("memory.total") to the
    number alone ("7979").  Placeholders ("[N/A]", "[Not Supported]", "N/A") and empty
    cells become None.  Pass `fields` (the --query-gpu list) for `--format=csv,noheader`.
    """
    require_text(text, "nvidia-smi CSV")
    lines = [line for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n") if line.strip()]
    if fields is None:
        if not lines:
            raise ParseError("empty nvidia-smi CSV output")
        header_line, data_lines = lines[0], lines[1:]
    else:
        header_line, data_lines = None, lines
    try:
        if header_line is not None:
            header = [h.strip() for h in next(csv.reader([header_line], skipinitialspace=True))]
        else:
            header = [str(f).strip() for f in fields or ()]
        rows = list(csv.reader(data_lines, skipinitialspace=True))
    except (csv.Error, StopIteration) as exc:
        raise ParseError(f"malformed nvidia-smi CSV: {exc}") from None
    if not header or any(not h for h in header):
        raise ParseError("malformed nvidia-smi CSV: empty header field")
    if len(set(header)) != len(header):
        raise ParseError("malformed nvidia-smi CSV: repeated header field")
    split = [split_csv_header(h) for h in header]
    result = []
    for number, row in enumerate(rows, start=1):
        if len(row) != len(header):
            raise ParseError(f"malformed nvidia-smi CSV: row {number} has {len(row)} cells, header has {len(header)}")
        record: dict[str, str | None] = {}
        for (name, unit), raw_key, cell in zip(split, header, row, strict=True):
            value = clean(cell)
            if unit is not None and name not in record:
                record[name] = _strip_unit(value, unit)
            record[raw_key] = value
        result.append(record)
    return tuple(result)
