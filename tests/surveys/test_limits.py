"""surveys/limits.py is the one place a bound is written, so each bound is written once there:
a name assigned twice would leave the reader of the first line with the wrong number."""

import ast
from collections import Counter
from pathlib import Path

import surveys.limits

LIMITS = Path(surveys.limits.__file__)


def assigned_names(tree):
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        for target in targets:
            elements = target.elts if isinstance(target, ast.Tuple) else [target]
            yield from (element.id for element in elements if isinstance(element, ast.Name))


def test_every_bound_is_assigned_once():
    counts = Counter(assigned_names(ast.parse(LIMITS.read_text(encoding="utf-8"))))
    assert counts, "no bound found: the parser no longer reads limits.py"
    assert [name for name, count in counts.items() if count > 1] == []
