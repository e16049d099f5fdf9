"""The one quoting layer: every command gpudoctor shows, writes or suggests is data here, and text only
through `render`.

A command is an argument vector (`Cmd`), an environment assignment (`SetEnv`; `SetFrom` where the value holds what
a program prints), a directory put first on a list-of-directories variable (`PrependPath`: LD_LIBRARY_PATH, PATH) or
a shell hook that evaluates gpudoctor's own `--shell` output (`EvalShell`). A prepended directory or a set value may
hold what a fixed program prints (`Output`: command substitution, `"$(...)"`): that program is gpudoctor's own argument vector,
and what it prints is one word in every target, never read as shell text. Values read from a machine (versions,
paths, bus ids, UUIDs, user names) only ever travel as single arguments; `render` quotes each one for
the target, so pasting the printed line runs exactly that argument vector and nothing else.

Targets: `posix` (bash, dash, zsh, ksh), `fish`, `powershell`, `cmd` (cmd.exe), `windows` (a line that cmd.exe and
PowerShell both read as the same argument vector, for a Windows user whose shell is not known), `cell` (a line of a
notebook cell on a Linux kernel, Colab or Jupyter: see _cell) and `envfile`
(docker's `--env-file` and systemd's `EnvironmentFile`: one NAME=value a line, no quoting at all, so
values that cannot be held, such as a newline, are refused). A value a target cannot hold raises
`Unrenderable`; callers that show commands to people catch it and say so instead of printing a
command that would do something else.

One string for every POSIX-family shell and fish. People paste a `posix` line into whatever shell
they have (root's fish among them), so a word is quoted so that bash, dash, zsh, ksh and fish all
read the same argument: runs of other characters in single quotes, and what fish treats as escapes
even inside single quotes (a quote, and a backslash before a backslash, a quote or the closing quote)
outside them, in double quotes (`"\\\\"`, `"'"`), which every one of these shells reads alike. Any other
backslash stays in the single quotes, where every one of them reads it as itself (`printf '%s\\n'`,
`'C:\\Users'`). The `fish` target quotes words the same way.

A note (`Cmd.note`) is never on the command's line: interactive zsh without `interactivecomments`
(its default) does not treat `#` as a comment, so `cmd  # a; b` would run `b`. A note is a line of
its own before the command, `# ` and words made only of letters, digits and `.,:/_+@%=-` (`=` never first; every other
character becomes a space or a lookalike that no shell gives a meaning): in every shell that line is
a comment, and in such a zsh it is at worst "command not found: #", with nothing expanded or run.

A word starting with `~/` keeps that tilde unquoted (`~/'my env'/bin/python`): the shell expands it to the home
directory and nothing else, as the paste that showed the path meant it.

Placeholders (`<distro>`, `<branch>`) are for the person to replace: they come from code only and are
quoted like any other word (`'<distro>'`), so a line pasted unchanged fails on a literal argument
instead of redirecting from or into a file.
"""

from __future__ import annotations

from collections.abc import Iterable

from gpudoctor.lazypattern import LazyPattern  # a plan's notes only
from gpudoctor.record import Record, record_class
from gpudoctor.sanitize import INVISIBLE

TARGETS = ("posix", "fish", "powershell", "cmd", "windows", "any", "cell")
_NAME = LazyPattern(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_PLACEHOLDER = LazyPattern(r"<[a-z][a-z0-9-]*>\Z")
# Characters no target can show or hold safely in one argument: C0 and C1 controls, DEL, and what the
# terminal sanitizer would rewrite (every default-ignorable code point: bidirectional overrides,
# zero-width characters, tag characters, Hangul fillers), since the line a person sees and pastes must
# be the line that was rendered.
_CONTROL = LazyPattern(f"[\x00-\x1f\x7f-\x9f{INVISIBLE}]")


class Unrenderable(ValueError):
    """A value that the target shell or file format cannot hold as one literal argument."""


@record_class(frozen=True, eq=False, repr=False)
class Placeholder(Record):
    """A part of a command the person fills in (`<distro>`): constant text from code, never machine data."""

    name: str

    def __post_init__(self) -> None:
        if not _PLACEHOLDER.match(f"<{self.name}>"):
            raise ValueError(f"not a placeholder name: {self.name!r}")

    def __str__(self) -> str:
        return f"<{self.name}>"


Arg = str | Placeholder


@record_class(frozen=True, eq=False, repr=False)
class Cmd(Record):
    """One program run: argv[0] is the program. `root`: needs administrator rights (sudo on POSIX).

    `pipe` is a second argument vector the output is filtered through (`| grep -E ...`); `note` is a
    short comment shown on the line before the command. `as_user` (a numeric uid): the command runs
    a file that user can change, so a root shell must run it as that user (`sudo -u '#1000' ...`),
    never as root (gpudoctor.doctor.for_root).
    """

    argv: tuple[Arg, ...]
    root: bool = False
    pipe: tuple[Arg, ...] = ()
    note: str = ""
    as_user: int | None = None

    def __post_init__(self) -> None:
        if not self.argv:
            raise ValueError("a command needs a program")
        object.__setattr__(self, "argv", tuple(self.argv))
        object.__setattr__(self, "pipe", tuple(self.pipe))
        for a in (*self.argv, *self.pipe):
            if not isinstance(a, (str, Placeholder)):
                raise TypeError(f"argument {a!r} is not a string")

    @property
    def words(self) -> tuple[str, ...]:
        """The argument vector as plain strings (placeholders as `<name>`): what a program would receive."""
        return tuple(str(a) for a in self.argv)

    def to_json(self) -> dict:
        out: dict = {"argv": list(self.words), "root": self.root}
        if self.pipe:
            out["pipe"] = [str(a) for a in self.pipe]
        if self.note:
            out["note"] = self.note
        if self.as_user is not None:
            out["as_user"] = self.as_user
        return out


@record_class(frozen=True, eq=False, repr=False)
class SetEnv(Record):
    """Set (or, with value None, unset) an environment variable in the current shell."""

    name: str
    value: str | None
    note: str = ""

    def __post_init__(self) -> None:
        if not _NAME.match(self.name):
            raise Unrenderable(f"not a variable name: {self.name!r}")

    def to_json(self) -> dict:
        out: dict = {"set": self.name, "value": self.value}
        if self.note:
            out["note"] = self.note
        return out


@record_class(frozen=True, eq=False, repr=False)
class EvalShell(Record):
    """Evaluate gpudoctor's own `--shell` output in the current shell (`eval "$(gpudoctor ... --shell)"`).

    `argv` is gpudoctor's command without `--shell`; each target gets the hook its shell understands.
    """

    argv: tuple[str, ...]
    note: str = ""

    def to_json(self) -> dict:
        out: dict = {"eval_shell": list(self.argv)}
        if self.note:
            out["note"] = self.note
        return out


@record_class(frozen=True, eq=False, repr=False)
class Output(Record):
    """What a fixed program prints, as one word (command substitution): `"$(python3 -c '...')"`.

    The argument vector is gpudoctor's own: a program and constant arguments written in code (an interpreter's
    path is at most one quoted word, like any argument). What the program prints is never shell text: POSIX
    shells take `"$(...)"` as one word, fish's `(...)` splits on newlines only, PowerShell's `$(...)` is a value.
    """

    argv: tuple[Arg, ...]
    # The directory it prints relative to its interpreter's site-packages (nvidia/cublas/lib), where it prints
    # one: what the consequence model (gpudoctor.planner.effects) follows; never rendered.
    site_dir: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "argv", tuple(self.argv))
        if not self.argv or not all(isinstance(a, (str, Placeholder)) for a in self.argv):
            raise TypeError(f"an output's program must be an argument vector of strings: {self.argv!r}")

    def to_json(self) -> dict:
        return {"output_of": [str(a) for a in self.argv]}

    def __str__(self) -> str:
        return "$(" + _argv(self.argv, "posix") + ")"


Part = str | Output | Placeholder


@record_class(frozen=True, eq=False, repr=False)
class PrependPath(Record):
    """Put one directory first on a list-of-directories variable (LD_LIBRARY_PATH, PATH), keeping what it holds.

    `parts`: the directory, as pieces joined without a separator: literal text (data, quoted for the target),
    `Output`s (`Output(python -c ...)`, "/lib") and `Placeholder`s for a folder only the person knows (quoted as
    text, like a command's: a line pasted unchanged adds a folder that does not exist, and nothing else). The name must end in PATH: fish keeps such variables as
    lists and exports them joined with ":" (any other it would join with spaces). Nothing empty is ever
    added: an empty entry (a leading or trailing ":") means the current directory to the loader.
    `notebook`: the step runs in a notebook cell (Colab, Jupyter), where `!export` changes a shell that ends
    with its line: there it is a Python statement that changes the kernel's environment, which every program
    the notebook starts afterwards (`!program`) inherits.
    `also`: more list variables the same directory goes first on (LIBRARY_PATH for a link, LD_LIBRARY_PATH for the
    load), in one line: a program that finds the directory runs once and its one answer goes on each.
    """

    name: str
    parts: tuple[Part, ...]
    note: str = ""
    notebook: bool = False
    also: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "parts", tuple(p for p in self.parts if p != ""))
        object.__setattr__(self, "also", tuple(self.also))
        for name in (self.name, *self.also):
            if not _NAME.match(name) or not name.endswith("PATH"):
                raise Unrenderable(f"not a list-of-directories variable: {name!r}")
        if len({self.name, *self.also}) != 1 + len(self.also):
            raise Unrenderable(f"a variable named twice: {(self.name, *self.also)!r}")
        if not self.parts or not all(isinstance(p, (str, Output, Placeholder)) for p in self.parts):
            raise TypeError(f"a directory must be text and programs' outputs: {self.parts!r}")

    @property
    def literal(self) -> str | None:
        """The directory where it is all literal text, else None (a program's output is known when it runs)."""
        texts = _texts(self.parts)
        return "".join(texts) if all(isinstance(p, str) for p in texts) else None  # type: ignore[arg-type]

    @property
    def names(self) -> tuple[str, ...]:
        """Every variable the directory goes first on, `name` first."""
        return (self.name, *self.also)

    def to_json(self) -> dict:
        out: dict = {"prepend": self.name, "parts": [p if isinstance(p, str) else p.to_json() for p in _texts(self.parts)]}
        if self.also:
            out["also"] = list(self.also)
        if self.note:
            out["note"] = self.note
        if self.notebook:
            out["notebook"] = True
        return out


@record_class(frozen=True, eq=False, repr=False)
class SetFrom(Record):
    """Set a variable to literal text joined with what one fixed program prints: a value an earlier step prints, used
    by a command instead of told in prose (XLA_FLAGS=--xla_gpu_cuda_data_dir=<the folder the wheel's line prints>).

    `parts` as PrependPath's (literal text is data, quoted for the target; placeholders are quoted as text), holding
    exactly one `Output`: cmd.exe sets a variable from one program's line at a time (`for /f`). A program that fails
    sets nothing in a POSIX shell (the assignment's status is its substitution's) and in cmd.exe (no line, no `set`).
    """

    name: str
    parts: tuple[Part, ...]
    note: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "parts", tuple(p for p in self.parts if p != ""))
        if not _NAME.match(self.name):
            raise Unrenderable(f"not a variable name: {self.name!r}")
        if not all(isinstance(p, (str, Output, Placeholder)) for p in self.parts):
            raise TypeError(f"a value must be text and a program's output: {self.parts!r}")
        if sum(isinstance(p, Output) for p in self.parts) != 1:
            raise TypeError(f"a value set from a program's output holds one program: {self.parts!r}")

    @property
    def value(self) -> str:
        """The value as text, the program as `$(...)`: what the consequence model (planner.effects) sets."""
        return "".join(str(p) for p in _texts(self.parts))

    def to_json(self) -> dict:
        out: dict = {"set": self.name, "parts": [p if isinstance(p, str) else p.to_json() for p in _texts(self.parts)]}
        if self.note:
            out["note"] = self.note
        return out


def _texts(parts: tuple[Part, ...]) -> tuple[str | Output, ...]:
    """The parts with each placeholder as its text (`<folder>`), which is quoted as any literal text is."""
    return tuple(str(p) if isinstance(p, Placeholder) else p for p in parts)


Line = Cmd | SetEnv | SetFrom | PrependPath | EvalShell


# --- quoting per target -----------------------------------------------------------------------

_POSIX_SAFE = LazyPattern(r"[A-Za-z0-9_@%+=:,./-]+\Z")


def _check(value: str, target: str) -> None:
    if _CONTROL.search(value):
        raise Unrenderable(f"a control or invisible character cannot be written into a {target} command: {value!r}")


def quote_posix(value: str) -> str:
    """One word that bash, dash, zsh, ksh and fish all read as `value` (see the module doc)."""
    _check(value, "POSIX shell")
    # zsh expands a word that starts with "=" (=cmd is the path of cmd): quote those too.
    if value and _POSIX_SAFE.match(value) and not value.startswith("="):
        return value
    if not value:
        return "''"
    if value.startswith("~/") and len(value) > 2:
        # A path under the home directory as a paste writes it (~/conda_envs/x/bin/python): the tilde and its slash
        # stay bare, so every POSIX shell and fish expand them to $HOME (a quoted ~ is a folder named "~"); the rest
        # is quoted as any word. Only `~/`: `~name` (another user's home) stays quoted, as itself.
        return "~/" + quote_posix(value[2:])
    parts = []
    for i, run in enumerate(_SPECIAL_RUNS.split(value)):
        if not run:
            continue
        if i % 2:  # a run the pattern captured: quotes and the backslashes fish would read as escapes
            # Inside double quotes `\\` is one backslash and `'` itself in every POSIX shell and in fish.
            parts.append('"' + run.replace("\\", "\\\\") + '"')
        else:
            parts.append("'" + run + "'")
    return "".join(parts)


# Runs of the characters fish reads as escapes inside single quotes, and runs of everything else. Inside single
# quotes fish takes a backslash as an escape only before another backslash or a quote (fish's documentation, "Quotes":
# "the only backslash escapes are \\' and \\\\"); any other backslash is itself there as in every POSIX shell, so
# `printf '%s\n'` stays as people write it. A backslash that ends the value would escape the closing quote: special.
_SPECIAL_RUNS = LazyPattern(r"((?:'|\\(?=[\\']|\Z))+)")


def quote_fish(value: str) -> str:
    """The same word as quote_posix: one string that every POSIX shell and fish read alike."""
    return quote_posix(value)


# PowerShell takes the typographic single quotes as quote characters too: each must be doubled.
_PS_QUOTES = "'\u2018\u2019\u201a\u201b"
_PS_SAFE = LazyPattern(r"[A-Za-z0-9_./:\\=+,-]+\Z")


def quote_powershell(value: str) -> str:
    _check(value, "PowerShell")
    if value and _PS_SAFE.match(value):
        return value
    return "'" + "".join(c + c if c in _PS_QUOTES else c for c in value) + "'"


def _ps_string(value: str) -> str:
    """A PowerShell single-quoted string literal (for expression mode, where bare words are not strings)."""
    _check(value, "PowerShell")
    return "'" + "".join(c + c if c in _PS_QUOTES else c for c in value) + "'"


_CMD_SAFE = LazyPattern(r"[A-Za-z0-9_./:\\=+,-]+\Z")


def quote_cmd(value: str) -> str:
    # cmd.exe expands %VAR% even inside double quotes and has no escape for a double quote inside
    # them, so such values cannot be passed literally: refuse rather than guess.
    _check(value, "cmd.exe")
    if any(c in value for c in '"%!'):
        raise Unrenderable(f"cmd.exe cannot hold {value!r} as one literal argument")
    if value and _CMD_SAFE.match(value):
        return value
    return f'"{value}"'


# cmd.exe or PowerShell, whichever the person has: a bare word only of characters neither reads specially (`=` is
# cmd.exe's delimiter for its built-ins only; a program's arguments keep it; `,` is PowerShell's array), else the
# word in double quotes, which both take as one argument. Inside them PowerShell expands `$` and reads the backtick
# and every double-quote kind (typographic ones included), cmd.exe expands `%` (and `!` where delayed expansion is
# on): values holding one cannot be written for both. Nor can an empty word (PowerShell 5.1 drops it) or a quoted
# word ending in a backslash (which escapes the closing quote for the program's argument parser).
_BOTH_SAFE = LazyPattern(r"[A-Za-z0-9_./:\\=+-]+\Z")
_BOTH_BAD = '"$`%!\u201c\u201d\u201e'


def quote_windows(value: str) -> str:
    _check(value, "cmd.exe or PowerShell")
    if value and _BOTH_SAFE.match(value):
        return value
    if not value or value.endswith("\\") or any(c in value for c in _BOTH_BAD):
        raise Unrenderable(f"no one line holds {value!r} as one literal argument in both cmd.exe and PowerShell")
    return f'"{value}"'


_QUOTE = {
    "posix": quote_posix,
    "fish": quote_fish,
    "powershell": quote_powershell,
    "cmd": quote_cmd,
    "windows": quote_windows,
    "cell": quote_posix,  # (a cell's `!` line is read by a POSIX shell: _cell)
}


def _word(arg: Arg, target: str) -> str:
    # A placeholder is quoted like any word: unquoted, `<image>` is a redirection in every shell, and a
    # pasted line that still holds one must fail on a literal argument, not read or truncate a file.
    return _QUOTE[target](str(arg))


# A PowerShell cmdlet's name, Verb-Noun (Microsoft's "Approved Verbs for PowerShell Commands": "Windows PowerShell uses
# a verb-noun pair for the names of cmdlets"): PowerShell's own command, no program cmd.exe finds on PATH, so a line
# that calls one (Restart-Computer, Get-ItemProperty) is PowerShell's only, whatever its quoting.
_CMDLET = LazyPattern(r"[A-Z][a-z]+-[A-Z][A-Za-z]+\Z")


def _argv(argv: Iterable[Arg], target: str) -> str:
    words = [_word(a, target) for a in argv]
    if target in ("windows", "cmd") and words and _CMDLET.match(words[0]):
        raise Unrenderable(f"{words[0]} is a PowerShell cmdlet: cmd.exe has no such program")
    if target == "windows" and words and words[0][:1] == '"':
        # PowerShell calls a quoted program only after `&`, which cmd.exe reads as a command separator.
        raise Unrenderable(f"no one line runs {words[0]} in both cmd.exe and PowerShell")
    if target == "powershell" and words and words[0][:1] in ("'", '"'):
        words.insert(0, "&")  # a quoted program name is a string to PowerShell until called with &
    return " ".join(words)


# A note's words: letters, digits and punctuation no shell acts on, also where `#` starts no comment
# (interactive zsh). Quotes become typographic lookalikes, `;` a comma, the rest a space.
_NOTE_MAP = {"'": "\u2019", '"': "\u201d", ";": ",", "<": "\u2039", ">": "\u203a", "(": "", ")": ""}
_NOTE_SAFE = LazyPattern(r"[\w .,:/+@%=\u2019\u201d\u2039\u203a-]")


def note_text(text: str) -> str:
    """`text` as a note's words: one line, nothing in it that a shell expands, quotes or runs."""
    text = _CONTROL.sub(" ", text)
    text = "".join(_NOTE_MAP.get(c, c) if _NOTE_SAFE.match(_NOTE_MAP.get(c, c) or " ") else " " for c in text)
    # A word starting with `=` is expanded by zsh (=cmd is a path): the sign never starts a word.
    return " ".join(w.lstrip("=") or "is" for w in text.split())


def _note(text: str, target: str) -> str:
    """The note as a line of its own ('' for none)."""
    if not text:
        return ""
    words = note_text(text)
    if not words:
        return ""
    return ("REM " if target == "cmd" else "# ") + words


def render_lines(line: Line, target: str = "posix") -> list[str]:
    """The note's line (if any) and the command's line. Raises Unrenderable."""
    if target == "any":
        target = _any(line)
    text = render(line, target)
    note = line.note
    if target == "windows" and not _both_shells(line):
        note = f"in PowerShell; {note}" if note else "in PowerShell"
        target = "powershell"
    if isinstance(line, Cmd) and line.root and target in ("powershell", "cmd", "windows"):
        note = ("as Administrator; " + note) if note else "as Administrator"
    if isinstance(line, Cmd) and line.as_user is not None and target in ("posix", "fish"):
        lead = f"as the user uid {line.as_user}, not as root: it runs files that user can change"
        note = f"{lead}; {note}" if note else lead
    # `windows`: "# " as PowerShell's comment; cmd.exe finds no program named "#" and runs nothing of the line.
    first = _note(note, target)
    return [first, text] if first else [text]


def _both_shells(line: Line) -> bool:
    """Whether `line` has one text that cmd.exe and PowerShell both run as it is (the `windows` target)."""
    try:
        _render(line, "windows")
    except Unrenderable:
        return False
    return True


def _any(line: Line) -> str:
    """`any` (a pasted report that names no OS): the line cmd.exe, PowerShell and a POSIX shell all run alike where
    one exists (a double-quoted `python -c "..."`: a single-quoted one is no one argument in cmd.exe), else the POSIX
    line. The `windows` line holds no `$`, backtick, `%` or `!`, which POSIX double quotes read; a backslash (an escape
    to a POSIX shell) and a command run as root (sudo) are POSIX's."""
    if (
        isinstance(line, Cmd)
        and not line.root
        and line.as_user is None
        and _both_shells(line)
        and not any("\\" in str(w) for w in (*line.argv, *line.pipe))
    ):
        return "windows"
    return "posix"


def render(line: Line, target: str = "posix") -> str:
    """One line of text for `target` that runs exactly this command (its note: render_lines). Raises Unrenderable.

    `windows`: the line both cmd.exe and PowerShell run alike; where none exists (an environment variable's
    assignment, a `$` in a value), the PowerShell line, which render_lines marks as such. `any`: see _any."""
    if target not in TARGETS:
        raise ValueError(f"unknown target {target!r}")
    if target == "any":
        target = _any(line)
    if target == "windows" and not _both_shells(line):
        return _render(line, "powershell")
    return _render(line, target)


def _render(line: Line, target: str) -> str:
    if target == "cell":
        return _cell(line)
    if isinstance(line, Cmd):
        text = _argv(line.argv, target)
        if line.as_user is not None and target in ("posix", "fish"):
            # Root runs it as the user who can change it: what that user could plant runs as them only.
            text = "sudo -u " + quote_posix(f"#{line.as_user}") + " " + text
        elif line.root and target in ("posix", "fish"):
            text = "sudo " + text
        if line.pipe:
            text += " | " + _argv(line.pipe, target)
        return text
    if isinstance(line, SetEnv):
        if target == "windows":
            raise Unrenderable("cmd.exe and PowerShell set a variable each its own way")
        return _setenv(line, target)
    if isinstance(line, PrependPath):
        return _prepend(line, target)
    if isinstance(line, SetFrom):
        if target == "windows":
            raise Unrenderable("cmd.exe and PowerShell set a variable each its own way")
        return _set_from(line, target)
    if isinstance(line, EvalShell):
        if target == "windows":
            raise Unrenderable("cmd.exe cannot evaluate gpudoctor's shell output")
        return _eval_shell(line, target)
    raise TypeError(f"not a command: {line!r}")


def _setenv(line: SetEnv, target: str) -> str:
    name, value = line.name, line.value
    if target == "posix":
        return f"unset {name}" if value is None else f"export {name}={quote_posix(value)}"
    if target == "fish":
        return f"set -e {name}" if value is None else f"set -gx {name} {quote_fish(value)}"
    if target == "powershell":
        # The right side of `=` is an expression, where a bare word is not a string (`/usr/x` divides): always quoted.
        return f"Remove-Item Env:{name}" if value is None else f"$env:{name} = {_ps_string(value)}"
    if value is None:
        return f'set "{name}="'
    quote_cmd(value)  # refuses what cmd cannot hold
    return f'set "{name}={value}"'


def _separator(name: str, target: str) -> str:
    # Windows' PATH is ";"-separated; LD_LIBRARY_PATH, and every list on the POSIX shells' systems, ":".
    return ";" if target in ("powershell", "cmd", "windows") and name != "LD_LIBRARY_PATH" else ":"


def _prepend(line: PrependPath, target: str) -> str:
    pieces_of: tuple[str | Output, ...] = _texts(line.parts)
    if line.notebook:
        return _prepend_python(line.names, pieces_of)
    if target == "windows":
        # cmd.exe reads %PATH% and PowerShell $env:Path: no one line does both (cmd's `set` in PowerShell sets a
        # shell variable no program sees), so render_lines gives the PowerShell line, marked as such.
        raise Unrenderable("cmd.exe and PowerShell extend a variable each its own way")
    if target == "posix":
        parts = "".join(quote_posix(p) if isinstance(p, str) else f'"$({_argv(p.argv, "posix")})"' for p in pieces_of)
        # the old value after a separator, only where there is one
        keep = {name: f'"${{{name}:+{_separator(name, target)}${name}}}"' for name in line.names}
        if line.literal is not None:
            return " && ".join(f"export {name}={parts}{keep[name]}" for name in line.names)
        # An assignment's status is its substitution's: a program that fails adds nothing (an empty entry
        # would be the current directory). The program runs once; each variable takes its one answer.
        return f"_gd_dir={parts} && " + " && ".join(f'export {name}="$_gd_dir"{keep[name]}' for name in line.names)
    if target == "fish":
        # Unquoted (...) splits on newlines only and, where the program prints nothing, is an empty list that
        # adds nothing: every fish 3 reads it; "$(...)" would need 3.4 and add an empty entry on failure.
        parts = "".join(quote_fish(p) if isinstance(p, str) else f"({_argv(p.argv, 'fish')})" for p in pieces_of)
        if not line.also:
            return f"set -gx {line.name} {parts} ${line.name}"
        # `set`'s status is its substitution's (as SetFrom's fish line): a program that fails sets nothing after it.
        return f"set -g _gd_dir {parts}; and " + "; and ".join(f"set -gx {n} $_gd_dir ${n}" for n in line.names)
    if target == "powershell":
        pieces = [_ps_string(p) if isinstance(p, str) else f"$( {_argv(p.argv, 'powershell')} )" for p in pieces_of]
        if not line.also:
            return f"$env:{line.name} = " + " + ".join([*pieces, _ps_string(_separator(line.name, target)), f"$env:{line.name}"])
        # (the program once, into a variable of this session; ` ; ` between the statements)
        return f"$gd_dir = {' + '.join(pieces)} ; " + " ; ".join(
            f"$env:{n} = $gd_dir + {_ps_string(_separator(n, target))} + $env:{n}" for n in line.names
        )
    # cmd.exe has no command substitution; `for /f` sets the variable from the program's one line of output.
    text = "".join(p if isinstance(p, str) else "%i" for p in pieces_of)
    for p in pieces_of:
        if isinstance(p, str):
            quote_cmd(p)  # refuses what cmd cannot hold
    sets = " & ".join(f'set "{n}={text}{_separator(n, target)}%{n}%"' for n in line.names)
    outputs = [p for p in pieces_of if isinstance(p, Output)]
    if not outputs:
        return sets
    if len(outputs) > 1:
        raise Unrenderable("cmd.exe sets a variable from one program's output at a time: use PowerShell")
    program = _argv(outputs[0].argv, "cmd")
    if program.startswith('"') or "'" in program:
        # cmd /c strips a leading quote, and `'` ends for /f's command: neither can be held here.
        raise Unrenderable("cmd.exe cannot run this program inside for /f: use PowerShell")
    return f"for /f \"delims=\" %i in ('{program}') do {sets}"


def _set_from(line: SetFrom, target: str) -> str:
    name, pieces = line.name, _texts(line.parts)
    if target == "posix":
        # The program's output alone first: the assignment's status is the substitution's, so a failing program
        # leaves the variable as it was.
        (program,) = (p for p in pieces if isinstance(p, Output))
        value = "".join(quote_posix(p) if isinstance(p, str) else '"$_gd_out"' for p in pieces)
        return f'_gd_out="$({_argv(program.argv, "posix")})" && export {name}={value}'
    if target == "fish":
        # `set`'s status is its substitution's (fish's set: "the exit status of the command substitution"), as POSIX's.
        (program,) = (p for p in pieces if isinstance(p, Output))
        value = "".join(quote_fish(p) if isinstance(p, str) else "$_gd_out" for p in pieces)
        return f"set -g _gd_out ({_argv(program.argv, 'fish')}); and set -gx {name} {value}"
    if target == "powershell":
        parts = [_ps_string(p) if isinstance(p, str) else f"$( {_argv(p.argv, 'powershell')} )" for p in pieces]
        return f"$env:{name} = " + " + ".join(parts)
    for p in pieces:
        if isinstance(p, str):
            quote_cmd(p)  # refuses what cmd cannot hold
    (command,) = (_argv(p.argv, "cmd") for p in pieces if isinstance(p, Output))
    if command.startswith('"') or "'" in command:
        raise Unrenderable("cmd.exe cannot run this program inside for /f: use PowerShell")
    text = "".join(p if isinstance(p, str) else "%i" for p in pieces)
    return f'for /f "delims=" %i in (\'{command}\') do set "{name}={text}"'


def _python_pieces(parts: tuple[str | Output, ...]) -> list[str]:
    """Each piece of a value as a Python expression for a notebook cell: a literal as its repr, a program's output as
    subprocess.run's, without its trailing newlines (as "$(...)" does); a failing program raises, and nothing is set."""
    pieces = []
    for p in parts:
        _check(p if isinstance(p, str) else " ".join(map(str, p.argv)), "Python")
        pieces.append(
            repr(p)
            if isinstance(p, str)
            else f"subprocess.run({[str(a) for a in p.argv]!r}, capture_output=True, text=True, check=True).stdout.rstrip(chr(10))"
        )
    return pieces


def _prepend_python(names: tuple[str, ...], parts: tuple[str | Output, ...]) -> str:
    """A notebook cell's Python statement; every piece a Python literal (repr), no shell involved (_python_pieces).
    Several variables take the one value, computed once."""
    value = " + ".join(_python_pieces(parts))
    sep = {name: _separator(name, "posix") for name in names}
    if len(names) == 1:
        (name,) = names
        return f"import os, subprocess; os.environ[{name!r}] = {sep[name]!r}.join(filter(None, [{value}, os.environ.get({name!r}, '')]))"
    return f"import os, subprocess; _gd_dir = {value}; " + "; ".join(
        f"os.environ[{name!r}] = {sep[name]!r}.join(filter(None, [_gd_dir, os.environ.get({name!r}, '')]))" for name in names
    )


# What IPython expands in a cell's `!` line and in a magic's (`%pip`) before any shell reads it: `$name` and `{expr}`,
# the braces' contents evaluated as Python (ipython/ipython IPython/utils/text.py @0663c692, DollarFormatter over
# FullEvalFormatter, applied by InteractiveShell.var_expand to `!` lines and to line magics' arguments; `%pip` passes
# its line to shell.system, which expands it once more, so no one escape holds for both).
_IPYTHON_EXPANDS = LazyPattern(r"[${}]")


def _cell(line: Line) -> str:
    """A notebook cell's line on a Linux kernel (Colab, Jupyter). A program: `!` and the POSIX line (the cell's shell
    escape, which runs it in a shell of its own), a `%` magic (`%pip`) as it is; where IPython would expand a word of
    it, the same argument vector run by Python's subprocess instead, its output printed. A variable or a directory on a
    path: a Python statement that changes the kernel's environment (`!export` would change a shell that ends with its
    line), which every program the notebook starts afterwards inherits."""
    if isinstance(line, Cmd):
        text = _render(line, "posix")
        magic = str(line.argv[0]).startswith("%") and not line.root and line.as_user is None
        if not _IPYTHON_EXPANDS.search(text):
            return text if magic else "!" + text
        if magic or line.pipe:
            raise Unrenderable("IPython would expand $ or braces in this notebook line")
        for a in line.argv:
            _check(str(a), "Python")
        lead = ["sudo", "-u", f"#{line.as_user}"] if line.as_user is not None else ["sudo"] if line.root else []
        argv = [*lead, *(str(a) for a in line.argv)]
        return (
            f"import subprocess; print(subprocess.run({argv!r}, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, "
            "text=True).stdout)"
        )
    if isinstance(line, SetEnv):
        _check(line.value or "", "Python")
        if line.value is None:
            return f"import os; os.environ.pop({line.name!r}, None)"
        return f"import os; os.environ[{line.name!r}] = {line.value!r}"
    if isinstance(line, PrependPath):
        return _prepend_python(line.names, _texts(line.parts))
    if isinstance(line, SetFrom):
        return _set_from_python(line.name, _texts(line.parts))
    raise Unrenderable("a notebook cell cannot evaluate gpudoctor's shell output")


def _set_from_python(name: str, parts: tuple[str | Output, ...]) -> str:
    """SetFrom as a notebook cell's Python statement: literal pieces as Python literals (repr), the program's output
    without its trailing newlines; a failing program raises, and nothing is set (as the shells' lines)."""
    return f"import os, subprocess; os.environ[{name!r}] = " + " + ".join(_python_pieces(parts))


def _eval_shell(line: EvalShell, target: str) -> str:
    if target == "posix":
        return f'eval "$({_argv(line.argv, "posix")} --shell)"'
    if target == "fish":
        return f"{_argv(line.argv, 'fish')} --shell fish | source"
    if target == "powershell":
        return f"{_argv(line.argv, 'powershell')} --shell powershell | Invoke-Expression"
    raise Unrenderable("cmd.exe cannot evaluate gpudoctor's shell output; use PowerShell")


def render_all(lines: Iterable[Line], target: str = "posix") -> list[str]:
    """Each line rendered, its note on a line before it; one that the target cannot hold becomes a note
    saying so (never a command)."""
    out = []
    for line in lines:
        try:
            out += render_lines(line, target)
        except Unrenderable as exc:
            out.append(_note(f"not shown: {exc}", target))
    return out


# --- a command line read back: a shown command as argv, only where it is plain -------------------------------------
#
# A command a paste shows run (the reporter's own, gpudoctor.pasted.failing) is printed again only as data: its words,
# each quoted here for the plan's shell. That holds only where the words are all it says: no pipe, redirection, list
# (`;`, `&&`, `&`), subshell, glob or brace outside quotes; no substitution or variable anywhere (`$x`, `$(...)`,
# backticks, cmd.exe's `%x%`: shells expand them inside double quotes too); no line continuation. Their meaning is the
# reporter's shell's, not parsed here: such a line is said in prose instead.
_QUOTED = LazyPattern(r"'[^']*'|\"[^\"]*\"")
_OPERATORS = LazyPattern(r"[|<>;&*?\[\]{}()]")
_EXPANDED = LazyPattern(r"[$`%]|\\$")
_WINDOWS_WORD = LazyPattern(r'"[^"]*"|[^\s"]+')


def split_plain(text: str, shell: str = "posix") -> tuple[str, ...] | None:
    """The argument vector of a shown command line `text` typed into `shell` (a TARGETS name; "" for unknown, read as
    POSIX), or None where it is not a plain command: an operator or glob outside quotes, a substitution or variable,
    an unbalanced quote, a character no line can hold (_CONTROL), or no words."""
    if not text.strip() or _CONTROL.search(text) or _EXPANDED.search(text) or _OPERATORS.search(_QUOTED.sub("", text)):
        return None
    if shell in _WINDOWS_SHELLS:
        # cmd.exe and PowerShell: words split at blanks outside double quotes; a single quote is PowerShell's own
        # literal, which cmd.exe does not know: not read.
        if "'" in text or text.count('"') % 2:
            return None
        words = tuple(w[1:-1] if w.startswith('"') else w for w in _WINDOWS_WORD.findall(text))
    else:
        import shlex  # (only a check of a paste reads a command back)

        try:
            words = tuple(shlex.split(text, posix=True))
        except ValueError:  # an unbalanced quote
            return None
    return words or None


def shell_for_os(system: str | None) -> str:
    """The target people on this OS paste into: PowerShell on Windows, a POSIX shell elsewhere."""
    return "powershell" if (system or "").lower().startswith("win") else "posix"


_WINDOWS_SHELLS = ("powershell", "cmd", "windows")


def shell_for_place(target: str, where: str) -> str:
    """The target of a step run somewhere else than the plan's machine: a step on Windows in a WSL (or any POSIX)
    plan is typed into PowerShell on the Windows side, where `sudo` does not exist (an elevated prompt is the
    Administrator's); a plan already written for a Windows shell keeps its own."""
    if where == "Windows" and target not in _WINDOWS_SHELLS:
        return "powershell"
    return target


# --- files of assignments ---------------------------------------------------------------------


def render_envfile(assignments: Iterable[tuple[str, str]]) -> str:
    """NAME=value lines for docker --env-file / systemd EnvironmentFile / a sourced file.

    Docker reads the value literally to the end of the line and systemd would strip quotes, so no
    quoting can be used: names must be names, and a value may not hold a newline, a control
    character, a quote, a backslash or a `$` (every reader treats those differently).
    """
    lines = []
    for name, value in assignments:
        if not _NAME.match(name):
            raise Unrenderable(f"not a variable name: {name!r}")
        if _CONTROL.search(value) or any(c in value for c in "\"'\\$`"):
            raise Unrenderable(f"{name}: an env file cannot hold {value!r}")
        lines.append(f"{name}={value}")
    return "".join(line + "\n" for line in lines)


def render_export_script(assignments: Iterable[tuple[str, str | None]], target: str = "posix") -> str:
    """A script of environment assignments for `eval` / `source` in `target`."""
    return "".join(render(SetEnv(n, v), target) + "\n" for n, v in assignments)


def posix(line: Line) -> str:
    return render(line, "posix")


def argv_text(argv: Iterable[str]) -> str:
    """An argument vector as one POSIX line, for showing what gpudoctor itself runs."""
    return _argv(argv, "posix")
