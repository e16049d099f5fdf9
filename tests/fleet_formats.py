"""What the fleet formats (`check --format prometheus|nfd|npd`) must be, checked the way their readers read them.

- Prometheus: prometheus_client's own parser (`text_string_to_metric_families`) must read the text, and
  every line must also fit the stricter grammar of the text format 0.0.4 that node_exporter's Go parser
  applies (only the escapes \\\\, \\" and \\n in a label value; no raw line feed; no timestamp, which the
  textfile collector refuses; no series twice).
- NFD: every line a comment or `name=value`, the name a valid Kubernetes label key in gpudoctor's
  namespace and the value a valid label value (kubernetes.io/docs/concepts/overview/working-with-objects/labels/).
- NPD: one line, at most the configured length.
"""

from __future__ import annotations

import re

import pytest

METRIC = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL_VALUE = r'"(?:[^"\\\n]|\\[\\"n])*"'
SAMPLE = re.compile(
    rf"^({METRIC})(\{{(?:[a-zA-Z_][a-zA-Z0-9_]*={LABEL_VALUE}(?:,[a-zA-Z_][a-zA-Z0-9_]*={LABEL_VALUE})*)?\}})? (\S+)$"
)
META = re.compile(rf"^# (HELP|TYPE) ({METRIC}) ?(.*)$")
# Kubernetes label: an optional DNS-subdomain prefix and '/', a name of at most 63; a value of at most 63.
LABEL_NAME = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$")
DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
NFD_NAMESPACE = "gpudoctor.feature.node.kubernetes.io"


def parse_exposition(text: str) -> dict[str, list]:
    """family name -> its samples, by prometheus_client's parser, after the strict line check."""
    parser = pytest.importorskip(
        "prometheus_client.parser",
        reason="prometheus-client is not installed (make test-tools, which runs pip install --group test)",
    )
    assert text.endswith("\n") and "\r" not in text
    seen: set[str] = set()
    for line in text.splitlines():
        if line.startswith("#"):
            assert META.match(line), f"bad comment line: {line!r}"
            continue
        m = SAMPLE.match(line)
        assert m, f"not a sample line of the text format: {line!r}"
        float(m.group(3).replace("Inf", "inf"))  # a value, and no timestamp after it
        key = m.group(1) + (m.group(2) or "")
        assert key not in seen, f"series written twice: {key}"
        seen.add(key)
    families = {f.name: f.samples for f in parser.text_string_to_metric_families(text)}
    assert sum(len(s) for s in families.values()) == len(seen)
    return families


def nfd_labels(text: str) -> dict[str, str]:
    """label name without the namespace -> value; asserts every line is valid for NFD and Kubernetes."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        name, sep, value = line.partition("=")
        assert sep, f"not name=value: {line!r}"
        prefix, slash, short = name.rpartition("/")
        assert slash and prefix == NFD_NAMESPACE, line
        assert len(prefix) <= 253 and DNS_SUBDOMAIN.match(prefix), prefix
        assert LABEL_NAME.match(short), f"invalid label name: {short!r}"
        assert value == "" or LABEL_NAME.match(value), f"invalid label value: {value!r}"
        assert short not in out, f"label twice: {short}"
        out[short] = value
    return out
