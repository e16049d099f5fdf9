"""Ask the package index whether it holds a wheel of the chosen build for this Python, OS and architecture.

The matrix says which builds exist; the index is the last word. This is the one place gpudoctor's
installer talks to the network, and it may not: `--offline`, a replayed machine, no index configured,
no answer within 3 seconds, an error or an answer it cannot read all give "not confirmed online",
never a failure. Which index: the one the install command names (PyTorch's variant index, or
--index-url), else pip's own configuration (PIP_INDEX_URL, then `pip config get global.index-url` run
by the target interpreter). No index is written here: with none configured there is nothing to ask.

The question is the index's project page in the Simple API: JSON where the index speaks it (PEP 691,
application/vnd.pypi.simple.v1+json), else the HTML page every index serves (PEP 503). The answer is
read to at most MAX_BYTES.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterable
from html.parser import HTMLParser
from urllib.parse import unquote, urlsplit, urlunsplit

from gpudoctor.planner.model import Build, Machine, Online, Plan
from gpudoctor.sanitize import clean_line

TIMEOUT_S = 3.0  # each wait for the index
TOTAL_S = 10.0  # the whole answer
MAX_BYTES = 8 * 1024 * 1024  # PyPI's JSON page of torch, every release and file: about 1 MiB
PIP_CONFIG_TIMEOUT_S = 5.0
_ACCEPT = "application/vnd.pypi.simple.v1+json, text/html;q=0.1"
_MAX_SHOWN = 3


def redact(url: str) -> str:
    """The URL without user and password (a mirror's token must not land in a support ticket)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unreadable URL>"
    host = parts.hostname or ""
    if parts.port:
        host += f":{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def distribution_to_check(build: Build) -> tuple[str, str] | None:
    """(distribution, version specifier) whose wheel carries the platform-specific part of the build."""
    spec = build.specs[0]
    name = re.split(r"[\[=<>!~]", spec, maxsplit=1)[0]
    pin = build.pin or ""
    version = pin if pin[:1] in "=<>!~" else f"=={pin}"
    if build.framework == "torch":
        version = spec[len(name) :]  # ==2.5.* or ==2.2.1+cu118
    if build.framework == "jax":
        # jax itself is pure Python: the CUDA plugin (or, for a CPU build, jaxlib) is what must exist for this platform.
        name = "jaxlib" if build.variant == "cpu" else f"jax-{build.variant}-plugin"
    return name, version


def configured_index(host, python: str | None) -> str | None:
    """pip's index for the target environment: PIP_INDEX_URL, else `pip config get global.index-url`."""
    env = host.env()
    if env.get("PIP_INDEX_URL", "").strip():
        return env["PIP_INDEX_URL"].strip()
    if not python:
        return None
    result = host.run([python, "-m", "pip", "config", "get", "global.index-url"], PIP_CONFIG_TIMEOUT_S)
    if not result.ok:
        return None
    line = result.stdout.strip().splitlines()[:1]
    url = line[0].strip() if line else ""
    return url if url.startswith(("http://", "https://")) else None


def index_for(plan: Plan, step_index: str | None, host) -> tuple[str | None, str]:
    """(the index to ask, or None; why none)."""
    if plan.chosen is None:
        return None, "no build chosen"
    if plan.chosen.build.find_links and not step_index:
        return None, "JAX's release page is not a package index"
    if step_index:
        return step_index, ""
    index = configured_index(host, plan.machine.env.python)
    return (index, "") if index else (None, "no index configured")


def _platform_ok(platform: str, machine: Machine) -> bool:
    if platform == "any":
        return True
    arch = machine.arch.lower()
    arch = {"amd64": "x86_64", "arm64": "aarch64"}.get(arch, arch)
    if machine.os == "linux":
        return ("linux" in platform) and platform.endswith(arch)
    if machine.os == "windows":
        return platform == {"x86_64": "win_amd64", "aarch64": "win_arm64"}.get(arch, "")
    if machine.os == "macos":
        mac_arch = {"aarch64": "arm64"}.get(arch, arch)
        return platform.startswith("macosx") and (platform.endswith(mac_arch) or platform.endswith("universal2"))
    return False


def _python_ok(interpreter: str, abi: str, python: str | None) -> bool:
    if abi.endswith("t") and abi.startswith("cp"):
        return False  # free-threaded builds: the probe cannot tell such an interpreter apart
    if not python:
        return True
    parts = python.split(".")
    mm = f"{parts[0]}{parts[1]}" if len(parts) > 1 else parts[0]
    if interpreter in (f"cp{mm}", f"py{mm}", f"py{parts[0]}"):
        return True
    if abi == "abi3" and interpreter.startswith(f"cp{parts[0]}") and len(parts) > 1:
        floor = interpreter[2 + len(parts[0]) :]
        return floor.isdigit() and int(floor) <= int(parts[1])
    return False


def matching_wheels(filenames: Iterable[str], distribution: str, specifier: str, machine: Machine) -> list[str]:
    """The wheel files of `distribution` within `specifier` that install on this Python, OS and architecture."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    from packaging.utils import InvalidWheelFilename, canonicalize_name, parse_wheel_filename

    try:
        spec = SpecifierSet(specifier)
    except InvalidSpecifier:
        return []
    want = canonicalize_name(distribution)
    out = []
    for filename in filenames:
        if not filename.endswith(".whl"):
            continue
        try:
            name, version, _, tags = parse_wheel_filename(filename)
        except (InvalidWheelFilename, ValueError):
            continue
        if name != want or not spec.contains(version, prereleases=True):
            continue
        if any(_python_ok(t.interpreter, t.abi, machine.python) and _platform_ok(t.platform, machine) for t in tags):
            out.append(filename)
    return out


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.files: list[str] = []
        self._href: str | None = None
        self._text = ""

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            self._href = dict(attrs).get("href") or ""
            self._text = ""

    def handle_data(self, data):
        if self._href is not None:
            self._text += data

    def handle_endtag(self, tag):
        if tag == "a" and self._href is not None:
            name = self._text.strip() or unquote(self._href.split("#", 1)[0].rsplit("/", 1)[-1])
            self.files.append(name)
            self._href = None


def parse_project_page(body: bytes, content_type: str) -> list[str]:
    """File names on a Simple API project page (JSON or HTML); ValueError when it is neither."""
    text = body.decode("utf-8")
    if "json" in content_type:
        doc = json.loads(text)
        if not isinstance(doc, dict) or not isinstance(doc.get("files"), list):
            raise ValueError("not a Simple API JSON page")
        return [
            f["filename"]
            for f in doc["files"]
            if isinstance(f, dict) and isinstance(f.get("filename"), str) and not f.get("yanked")
        ]
    if "<a" not in text.lower():
        raise ValueError("no links on the page")
    parser = _Links()
    parser.feed(text)
    return parser.files


def _fetch(url: str) -> tuple[int, str, bytes]:
    import requests  # imported here: only a plan that asks the index pays for it

    # requests' timeout bounds each wait, not the whole answer: a slow trickle is cut at the deadline too.
    deadline = time.monotonic() + TOTAL_S
    with requests.get(url, headers={"Accept": _ACCEPT}, timeout=TIMEOUT_S, stream=True, allow_redirects=True) as r:
        body = bytearray()
        for chunk in r.iter_content(64 * 1024):
            body += chunk
            if len(body) > MAX_BYTES:
                raise ValueError(f"the answer is larger than {MAX_BYTES // (1024 * 1024)} MiB")
            if time.monotonic() > deadline:
                raise ValueError(f"the answer took longer than {TOTAL_S:.0f} s")
        return r.status_code, r.headers.get("Content-Type", ""), bytes(body)


def _where(machine: Machine) -> str:
    py = f"Python {machine.python}" if machine.python else "any Python"
    return f"{py} on {machine.os} {machine.arch}"


def confirm(plan: Plan, index: str | None, *, why_not: str = "", fetch=_fetch) -> Online:
    """The index's word on the chosen build. Never raises: any failure is "not confirmed online".
    The URL and file names come from configuration and the network: the text is sanitized."""
    o = _confirm(plan, index, why_not, fetch)
    return Online(o.status, clean_line(o.text), o.index and clean_line(o.index), tuple(clean_line(f) for f in o.files))


def _confirm(plan: Plan, index: str | None, why_not: str, fetch) -> Online:
    if plan.chosen is None:
        return Online("unconfirmed", "not confirmed online (no build chosen)")
    if index is None:
        return Online("unconfirmed", f"not confirmed online ({why_not or 'no index'})")
    shown = redact(index)
    what = distribution_to_check(plan.chosen.build)
    if what is None:
        return Online("unconfirmed", "not confirmed online (nothing to look up)", shown)
    name, spec = what
    from packaging.utils import canonicalize_name

    url = index.rstrip("/") + "/" + canonicalize_name(name) + "/"
    try:
        status, ctype, body = fetch(url)
    except Exception as exc:  # noqa: BLE001 - offline, refused, timed out, too large: all one answer
        reason = (
            "no answer in time"
            if "timeout" in type(exc).__name__.lower()
            else (str(exc) if isinstance(exc, ValueError) else "no answer")
        )
        return Online("unconfirmed", f"not confirmed online ({reason} from {shown})", shown)
    if status == 404:
        return Online("missing", f"NOT found online: {shown} has no project {name}", shown)
    if status != 200:
        return Online("unconfirmed", f"not confirmed online ({shown} answered HTTP {status})", shown)
    try:
        files = parse_project_page(body, ctype.lower())
    except (ValueError, UnicodeDecodeError):
        return Online("unconfirmed", f"not confirmed online (the answer from {shown} could not be read)", shown)
    found = matching_wheels(files, name, spec, plan.machine)
    if not found:
        return Online("missing", f"NOT found online: {shown} lists no {name}{spec} wheel for {_where(plan.machine)}", shown)
    return Online(
        "confirmed",
        f"confirmed online: {shown} has {len(found)} {name}{spec} wheel(s) for {_where(plan.machine)}, e.g. {found[-1]}",
        shown,
        tuple(found[-_MAX_SHOWN:]),
    )
