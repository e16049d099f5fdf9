"""What a Python environment holds, asked of that environment's own interpreter.

`describe()` runs in gpudoctor's interpreter when the probed environment is
its own, and its source is sent to another interpreter otherwise (gpudoctor
installed with pipx must still see the project's torch). It therefore uses
only the standard library and syntax that Python 3.6 accepts, and never
imports a framework: it reads `*.dist-info` / `*.egg-info` directory names,
which is both faster than importlib.metadata and works on any Python.

This file is the script alone (its source is what the other interpreter runs); how it is sent, and
when it need not be, is gpudoctor.host.pyask's.
"""

import os
import sys

# The answer as JSON text, written by `to_json`: importing json costs a distribution's python3 (Debian 12's
# /usr/bin/python3) as much again as its whole start-up (json.decoder imports re, re imports enum: 31.6 M
# instructions for `-c pass`, 57.1 M for `-c "import json"`), and that start-up is a check's slowest probe.
SCRIPT_CALL = "\nprint(to_json(describe()))\n"


def _site_dirs():
    seen = []
    for entry in sys.path:
        if not entry or not os.path.isdir(entry):
            continue
        real = os.path.abspath(entry)
        if real in seen:
            continue
        if real.endswith(("site-packages", "dist-packages")) or os.path.basename(real).startswith("python"):
            seen.append(real)
    return seen


def _split_dist_dir(name):
    # "torch-2.1.0+cu121.dist-info" -> ("torch", "2.1.0+cu121");
    # "foo-1.0-py3.8.egg-info" -> ("foo", "1.0").
    stem = name.rsplit(".", 1)[0]
    parts = stem.split("-")
    if len(parts) < 2:
        return None
    return parts[0], parts[1]


def collect_distributions(site_dirs, listdir):
    """({name: version}, {name: site directory}) from the *.dist-info / *.egg-info names in `site_dirs`;
    `listdir` raises OSError for a directory it cannot list (skipped). One reading for every way an
    environment is read (its interpreter, its files), so the answers agree."""
    dists = {}
    locations = {}
    for directory in site_dirs:
        try:
            names = sorted(listdir(directory))
        except OSError:
            continue
        for name in names:
            if not (name.endswith(".dist-info") or name.endswith(".egg-info")):
                continue
            split = _split_dist_dir(name)
            if split is None:
                continue
            dist, version = split
            key = dist.lower().replace("_", "-").replace(".", "-")
            # The first site directory on sys.path wins, as it does for import.
            if key not in dists:
                dists[key] = version
                locations[key] = directory
    return dists, locations


def to_json(value):
    """`value` (describe()'s: str, list, tuple, dict with str keys) as JSON text from which json.loads reads what
    it reads from `json.dumps(value)`: every character outside printable ASCII, and `"` and `\\`, written as a
    \\u escape (json.dumps, with its default ensure_ascii, escapes the same characters; it writes a few of them
    shorter, as \\n or \\"), so the text is ASCII whatever the pipe's encoding. A lone surrogate (a file name that
    is not UTF-8, decoded with surrogateescape) is written as its own escape, as json.dumps writes it."""
    if isinstance(value, str):
        try:
            value.encode("ascii")
            plain = value.isprintable() and '"' not in value and "\\" not in value
        except UnicodeEncodeError:
            plain = False
        if plain:
            return '"' + value + '"'
        out = []
        for ch in value:
            code = ord(ch)
            if 0x20 <= code < 0x7F and ch != '"' and ch != "\\":
                out.append(ch)
            elif code < 0x10000:
                out.append(f"\\u{code:04x}")
            else:  # a UTF-16 surrogate pair, as JSON writes a character beyond the BMP
                code -= 0x10000
                out.append(f"\\u{0xD800 | (code >> 10):04x}\\u{0xDC00 | (code & 0x3FF):04x}")
        return '"' + "".join(out) + '"'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(to_json(item) for item in value) + "]"
    if isinstance(value, dict):
        pairs = []
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError("keys must be str, not " + type(key).__name__)
            pairs.append(to_json(key) + ": " + to_json(item))
        return "{" + ", ".join(pairs) + "}"
    raise TypeError("Object of type " + type(value).__name__ + " is not JSON serializable")


def describe():
    """This interpreter's version, prefix, kind, site-packages and distributions."""
    site_dirs = [d for d in _site_dirs() if d.endswith(("site-packages", "dist-packages"))]
    dists, locations = collect_distributions(site_dirs, os.listdir)
    prefix = sys.prefix
    if getattr(sys, "base_prefix", prefix) != prefix:
        kind = "conda" if os.path.isdir(os.path.join(prefix, "conda-meta")) else "venv"
    else:
        kind = "conda" if os.path.isdir(os.path.join(prefix, "conda-meta")) else "system"
    return {
        "executable": sys.executable,
        "version": "{}.{}.{}".format(*sys.version_info[:3]),
        "prefix": prefix,
        "kind": kind,
        "site_packages": site_dirs,
        "distributions": dists,
        "locations": locations,
    }
