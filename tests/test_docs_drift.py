"""Docs that cannot drift from the code: every command and option they name exists, and the speed they
claim is a figure the benchmark recorded.

1. Every `gpudoctor ...` command line in README.md, docs/*.md and docs/findings/*.md (code spans and
   code blocks, after `sudo`, `python -m`, `eval "$(...)"`, a path, a YAML `run:` or a JSON argv
   list) is walked through the real CLI (click's command tree of gpudoctor.cli): each subcommand must
   exist, and each option must be an option of the command it is given to. Values and placeholders
   are not judged (CODE, FILE, 12.5). ALLOWED lists the few mentions that are not gpudoctor command
   lines, each with why.
2. Every option named alone in a code span (`--deep`) is an option of some gpudoctor command, or
   another program's option listed in OTHER_PROGRAMS_OPTIONS with the program it belongs to.
3. The speed the docs claim for `gpudoctor check` is the median bench/check_speed.py recorded in
   bench/README.md's results block (which also records the machine's load at the time).
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "docs" / "findings").glob("*.md"))]

FENCE = re.compile(r"^(```|~~~)[^\n]*\n(.*?)^\1[ \t]*$", re.MULTILINE | re.DOTALL)
SPAN = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
ARGV_LIST = re.compile(r"\[\s*\"(?:[^\"]*/)?gpudoctor\"[^\]]*\]")
WORD = re.compile(r"[a-z][a-z0-9-]*")

# Mentions of "gpudoctor" followed by words that are not a gpudoctor command line, and why.
ALLOWED = {
    "gpudoctor ch": "docs/completion.md: the half-typed word before Tab, not a command",
}
# A word before "gpudoctor" that makes it an argument of another program, not the program run.
NOT_RUN_AFTER = {"install", "uninstall", "show", "download", "daemonset", "which", "-l", "--name", "inject"}

# Options named alone in code spans that belong to other programs (the docs tell people to run those).
OTHER_PROGRAMS_OPTIONS = {
    "--find-links": "pip (JAX's wheel index: docs/install.md)",
    "--no-index": "pip (an offline install: docs/security.md)",
    "--force-reinstall": "pip",
    "--no-deps": "pip (extras installed beside a container's own torch: docs/pasted.md)",
    "--no-build-isolation": "pip (an extension built against the installed torch: docs/findings/extension-not-built.md)",
    "--config-settings": "pip (a build backend's options, from pip 22.1: docs/findings/pip-too-old.md)",
    "--build-option": "pip (setup.py's options through --config-settings: docs/findings/pip-too-old.md)",
    "--install": "update-alternatives (docs/switch-cuda.md)",
    "--set": "update-alternatives",
    "--query": "update-alternatives",
    "--admindir": "update-alternatives",
    "--altdir": "update-alternatives",
    "--log": "update-alternatives",
    "--gpus": "docker run",
    "--ipc": "docker run (shared memory: docs/findings/shm-too-small.md)",
    "--shm-size": "docker run (shared memory: docs/findings/shm-too-small.md)",
    "--network": "docker run (the host's network: docs/findings/container-network-isolated.md)",
    "--net": "docker run (the host's network: docs/findings/container-network-isolated.md)",
    "--nnodes": "torchrun (a job's node count: docs/findings/container-network-isolated.md)",
    "--gres": "srun (Slurm)",
    "--cpu-bind": "srun (Slurm): docs/findings/bandwidth-low.md",
    "--device": "docker run (device nodes passed in: docs/cluster.md)",
    "--shuffle": "tools/mutate.py, the mutation run (docs/testing.md)",
    "--gpu-layers": "llama.cpp (its GPU offload: docs/pasted.md)",
    "--disable-cuda-malloc": "ComfyUI (PyTorch's native allocator: docs/findings/torch-allocator-unsupported.md)",
}


def _command_tree():
    import typer.main

    from gpudoctor.cli import _app, _register

    _register()
    return typer.main.get_command(_app())


def _options(command) -> dict[str, bool]:
    """Option name -> whether it takes a value."""
    out = {"-h": False, "--help": False}
    for p in command.params:
        names = list(getattr(p, "opts", ())) + list(getattr(p, "secondary_opts", ()))
        takes = not (getattr(p, "is_flag", False) or getattr(p, "count", False))
        for n in names:
            if n.startswith("-"):
                out[n] = takes
    return out


def _mentions() -> list[tuple[str, str]]:
    """(file, text) of every code span and code-block line that names gpudoctor."""
    out = []
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        where = str(path.relative_to(ROOT))
        for m in FENCE.finditer(text):
            joined = re.sub(r"\\\n\s*", " ", m.group(2))  # a command continued with a backslash is one line
            out += [(where, line) for line in joined.splitlines() if "gpudoctor" in line]
        for m in SPAN.finditer(FENCE.sub("", text)):
            if "gpudoctor" in m.group(1):
                out.append((where, m.group(1)))
    return out


def _commands(text: str) -> list[list[str]]:
    """The simple commands of a shell line, as argument lists: quotes respected (a quoted sentence that
    names gpudoctor is one word, not a command), split at pipes, lists, redirections and parentheses, and
    the text of each `$(...)` or backtick substitution parsed as commands of its own."""
    text = re.sub(r"^\s*(\$ |-\s+)?([a-z_]+:\s+(?=\S))?", "", text)  # a prompt, a YAML list item, a YAML `run:` key
    lexer = shlex.shlex(text, posix=True, punctuation_chars=";&|()<>")
    lexer.whitespace_split = True
    lexer.commenters = "#"
    try:
        tokens = list(lexer)
    except ValueError:  # an unbalanced quote (a line of a multi-line string): not a command line
        return []
    out: list[list[str]] = [[]]
    for token in tokens:
        if token and set(token) <= set(";&|()<>"):
            out.append([])
            continue
        for inner in re.findall(r"\$\((.*)\)|`([^`]*)`", token):
            out += _commands(inner[0] or inner[1])
        if not token.startswith(("$(", "`")):
            out[-1].append(token)
    return [c for c in out if c]


def invocations() -> list[tuple[str, str, list[str]]]:
    """(file, the line as written, the arguments after `gpudoctor`) for every gpudoctor command line."""
    out = []
    for where, text in _mentions():
        for m in ARGV_LIST.finditer(text):
            argv = json.loads(m.group(0))
            out.append((where, text, argv[1:]))
        for tokens in _commands(ARGV_LIST.sub("", text)):
            for i, token in enumerate(tokens):
                if token != "gpudoctor" and not token.endswith("/gpudoctor"):
                    continue
                if i and tokens[i - 1] in NOT_RUN_AFTER:
                    continue
                rest = tokens[i + 1 :]
                if " ".join(["gpudoctor", *rest]) in ALLOWED:
                    continue
                out.append((where, text, rest))
                break
    return out


def problems_of(args: list[str], tree) -> list[str]:
    command, path, problems = tree, ["gpudoctor"], []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            break
        subcommands = getattr(command, "commands", None) or {}
        if arg.startswith("-") and len(arg) > 1 and not re.match(r"-\d", arg):
            name = arg.split("=", 1)[0]
            options = _options(command)
            if name not in options:
                problems.append(f"{' '.join(path)} has no option {name}")
            elif options[name] and "=" not in arg:
                i += 1  # its value
        elif arg in subcommands:
            command = subcommands[arg]
            path.append(arg)
        elif subcommands and len(path) == 1 and WORD.fullmatch(arg):
            problems.append(f"gpudoctor has no command {arg!r}")
            break
        i += 1
    return problems


def test_the_docs_name_gpudoctor_command_lines():
    found = invocations()
    assert len(found) > 100  # the extraction works: the docs are full of them
    named = {args[0] for _, _, args in found if args}
    assert {"check", "explain", "memory", "switch-cuda", "install", "fix", "snapshot", "report"} <= named


def test_every_command_and_option_the_docs_name_exists():
    tree = _command_tree()
    wrong = []
    for where, line, args in invocations():
        for problem in problems_of(args, tree):
            wrong.append(f"{where}: `{line.strip()}`: {problem}")
    assert not wrong, "\n".join(wrong)


def test_options_named_alone_are_gpudoctor_options_or_anothers():
    tree = _command_tree()
    ours: set[str] = set()
    todo = [tree]
    while todo:
        command = todo.pop()
        ours |= set(_options(command))
        todo += list((getattr(command, "commands", None) or {}).values())
    wrong = []
    for path in DOCS:
        text = FENCE.sub("", path.read_text(encoding="utf-8"))
        for m in SPAN.finditer(text):
            span = m.group(1).strip()
            if re.fullmatch(r"--[a-z][a-z0-9.-]*(=\S*)?( \S+)?", span):
                name = span.split("=")[0].split(" ")[0]
                if name not in ours and name not in OTHER_PROGRAMS_OPTIONS:
                    wrong.append(f"{path.relative_to(ROOT)}: `{span}` is no gpudoctor option")
    assert not wrong, "\n".join(wrong)


def test_the_checker_catches_what_it_should():
    tree = _command_tree()
    assert problems_of(["check", "--no-such-option"], tree) == ["gpudoctor check has no option --no-such-option"]
    assert problems_of(["chek"], tree) == ["gpudoctor has no command 'chek'"]
    assert problems_of(["memory", "--watch", "plan", "--isolate", "a=1GiB"], tree) == []
    assert problems_of(["memory", "plan", "--watch"], tree) == ["gpudoctor memory plan has no option --watch"]
    assert problems_of(["check", "--probe-timeout", "-1", "--format=json"], tree) == []
    assert problems_of(["explain", "CODE"], tree) == []
    found = {(w, tuple(a)) for w, _, a in invocations()}
    assert ("README.md", ("completion", "bash")) in found  # from eval "$(gpudoctor completion bash)"


# --- speed claims ------------------------------------------------------------------------------------

BENCH_README = ROOT / "bench" / "README.md"
BLOCK = re.compile(r"<!-- check_speed results: begin -->\n(.*?)<!-- check_speed results: end -->", re.DOTALL)


def bench_block() -> str:
    blocks = BLOCK.findall(BENCH_README.read_text(encoding="utf-8"))
    assert len(blocks) == 1, "bench/README.md holds one check_speed results block (bench/check_speed.py --update)"
    return blocks[0]


def bench_medians() -> dict[str, float]:
    rows = {}
    for line in bench_block().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and cells[0].startswith("`") and re.fullmatch(r"\d+\.\d+", cells[1]):
            rows[cells[0]] = float(cells[1])
    return rows


def test_the_bench_block_records_one_run_with_the_load_at_the_time():
    block = bench_block()
    assert re.search(r"Load average \(1, 5, 15 min\) [\d.]+ [\d.]+ [\d.]+ before the run", block)
    assert "`python -c pass`" in bench_medians()
    assert any(label.startswith("`gpudoctor check`") for label in bench_medians())


BUSY_BLOCK = re.compile(
    r"<!-- check_speed results under load: begin -->\n(.*?)<!-- check_speed results under load: end -->", re.DOTALL
)


def test_the_under_load_block_says_how_the_load_was_made():
    """Issue 31's ratio is judged under load: the block is the script's --busy run, which anyone can make again,
    and it says the load it ran at and divides each check by `python -c pass` of the same rounds."""
    blocks = BUSY_BLOCK.findall(BENCH_README.read_text(encoding="utf-8"))
    assert len(blocks) == 1, "bench/README.md holds one under-load block (bench/check_speed.py --busy N --update)"
    assert re.search(r"`bench/check_speed\.py --runs \d+ --busy [1-9]\d*`", blocks[0])
    assert re.search(r"Load average \(1, 5, 15 min\) [\d.]+ [\d.]+ [\d.]+ before the run", blocks[0])
    assert "| x pass |" in blocks[0] and "`gpudoctor check`" in blocks[0]


def test_speed_claims_in_the_docs_are_the_benchmarks_figures():
    """A time in seconds in a paragraph about `gpudoctor check` that cites bench/README.md is a `gpudoctor check`
    median there (a paragraph cannot cite the benchmark for a figure it does not hold)."""
    checks = {label: v for label, v in bench_medians().items() if label.startswith("`gpudoctor check")}
    claims = []
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        for paragraph in re.split(r"\n\s*\n", FENCE.sub("", text)):
            if "bench/README.md" not in paragraph or "gpudoctor check" not in paragraph:
                continue
            for m in re.finditer(r"\b([0-9]+(?:\.[0-9]+)?) ?(s|ms)\b", paragraph):
                value = float(m.group(1)) / (1000 if m.group(2) == "ms" else 1)
                claims.append((path.relative_to(ROOT), value))
        assert "tenth of a second" not in text, f"{path.relative_to(ROOT)}: a speed claim without the benchmark's figure"
    assert claims, "docs/ci.md names the speed of a check, from bench/README.md"
    for where, value in claims:
        assert any(abs(value - median) < 0.0005 for median in checks.values()), (where, value, checks)


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_page_calls_a_command_planned(path):
    """Three finding pages said `gpudoctor install` "is planned (issue 7)" long after it shipped: a page
    that names a gpudoctor command names one that exists (the tests above), never one still to come."""
    text = " ".join(path.read_text(encoding="utf-8").lower().split())
    assert not re.search(r"(subcommand|command|option) (is|are) (still )?planned|planned \(issue \d+\)", text)


# --- 4. transcripts: what docs/ci.md shows a command printing is what it prints -----------------------------
TRANSCRIPT_DOCS = [ROOT / "docs" / "ci.md"]  # its transcripts are usage errors: nothing is probed, the same anywhere


def _transcripts(path: Path) -> list[tuple[str, list[str]]]:
    """(command line, printed lines) of each fenced block that starts with `$ ` and shows what it printed."""
    out = []
    for match in FENCE.finditer(path.read_text(encoding="utf-8")):
        lines = match.group(2).rstrip("\n").splitlines()
        if len(lines) > 1 and lines[0].startswith("$ ") and not any(line.startswith("$ ") for line in lines[1:]):
            out.append((lines[0][2:], lines[1:]))
    return out


def test_documented_transcripts_are_what_the_cli_prints():
    """Issue 31, item 8: docs/ci.md's examples are the real output (stdout, then stderr), with exit status 2."""
    from tests.hostile.test_corpus import run_cli

    examples = [(path, line, printed) for path in TRANSCRIPT_DOCS for line, printed in _transcripts(path)]
    assert len(examples) >= 2, "docs/ci.md shows the bad GPUDOCTOR_FAIL_ON and --require examples"
    for path, line, printed in examples:
        words = shlex.split(line)
        leading = [w for w in words[: words.index("gpudoctor")] if re.match(r"^[A-Z_][A-Z0-9_]*=", w)]
        env = dict(w.split("=", 1) for w in leading)
        argv = words[len(leading) :]
        assert argv[0] == "gpudoctor", line
        code, out, err = run_cli(*argv[1:], env=env)
        assert (out + err).splitlines() == printed, f"{path.name}: `{line}` prints:\n{out}{err}"
        assert code == 2, line
