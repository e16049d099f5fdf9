"""Read literal top-level assignments from generated Python modules without executing them.

Accepts `name = <literal>`, `name: T = <literal>` and `name = collections.OrderedDict([...])` / `dict(...)` of literal pairs.
"""

from __future__ import annotations

import ast
import warnings

from gpudoctor.errors import ParseError
from gpudoctor.parsers._common import require_text


def _dict_call(node: ast.Call) -> dict[object, object] | None:
    """Value of OrderedDict([...]) / collections.OrderedDict([...]) / dict([...]) with literal pairs."""
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    if name not in ("OrderedDict", "dict") or node.keywords or len(node.args) > 1:
        return None
    if not node.args:
        return {}
    pairs = ast.literal_eval(node.args[0])
    if not isinstance(pairs, (list, tuple)):
        return None
    result: dict[object, object] = {}
    for pair in pairs:
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            return None
        key, value = pair
        result[key] = value
    return result


def module_literals(text: str, what: str) -> dict[str, object]:
    """Top-level names bound to literal values.  Other statements are ignored, never run.

    Raises ParseError when `text` is not Python source.
    """
    require_text(text, what)
    try:
        with warnings.catch_warnings():
            # Odd escapes in string literals warn (SyntaxWarning/DeprecationWarning); under
            # -W error that warning would escape as a foreign exception.
            warnings.simplefilter("ignore")
            tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError) as exc:
        # ValueError: NUL bytes or over-long int literals; RecursionError: absurd nesting.
        raise ParseError(f"{what} is not valid Python: {type(exc).__name__}: {exc}") from None
    literals: dict[str, object] = {}
    for statement in tree.body:
        if isinstance(statement, ast.Assign):
            targets = [t.id for t in statement.targets if isinstance(t, ast.Name)]
            value_node = statement.value
        elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            if statement.value is None:
                continue
            targets = [statement.target.id]
            value_node = statement.value
        else:
            continue
        if not targets:
            continue
        try:
            if isinstance(value_node, ast.Call):
                value = _dict_call(value_node)
                if value is None:
                    continue
            else:
                value = ast.literal_eval(value_node)
        except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError, OverflowError):
            # Not a literal (a function call, a name...): not something we read.
            continue
        for target in targets:
            literals[target] = value
    return literals
