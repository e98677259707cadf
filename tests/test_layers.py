"""Every room in its layer (docs/architecture.md, "The layers, and why"), read from the source.

Each module's imports are parsed (``ast``, relative imports resolved), so a layer crossed in a
new file fails here before review:

- ``dpengine`` and ``blindrsa`` are plain libraries: no Django, nothing from the app;
- selectors read: they import no service, view, API view, form or export;
- services write: they import no view, API view, form or export, and what they take from the
  selectors is public (no leading underscore);
- exports turn reads into files: no view, API view or form;
- ``models`` and ``limits`` sit under everything: they import no layer of the app;

and no module grows past ``MAX_LINES`` but those named in ``LONGER_ON_PURPOSE``, each with
its reason in docs/architecture.md.
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("surveys", "dpengine", "blindrsa")
MAX_LINES = 450
# Kept whole on purpose; docs/architecture.md says why (a test below checks it does).
LONGER_ON_PURPOSE = {"surveys/models.py"}

# The layers that take requests and render: nothing below them imports them.
EDGE = ("surveys.views", "surveys.api", "surveys.forms", "surveys.templatetags")
# (the importing layer, the layers it must not import, why)
FORBIDDEN = [
    ("dpengine", ("django", "rest_framework", "surveys", "blindrsa"), "a plain library"),
    ("blindrsa", ("django", "rest_framework", "surveys", "dpengine"), "a plain library"),
    (
        "surveys.selectors",
        ("surveys.services", "surveys.exports", *EDGE),
        "a read never depends on a write, a file or the edge",
    ),
    ("surveys.services", ("surveys.exports", *EDGE), "a write never depends on a file or the edge"),
    ("surveys.exports", EDGE, "a file is made from reads, not from pages"),
    (
        "surveys.models",
        (
            "surveys.selectors",
            "surveys.services",
            "surveys.views",
            "surveys.api",
            "surveys.forms",
            "surveys.exports",
        ),
        "the schema sits under every layer",
    ),
    ("surveys.limits", ("surveys", "django", "dpengine"), "models read it at import time"),
]


def modules():
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" not in path.parts:
                yield path


def module_name(path):
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path):
    """``(module imported, names taken from it, line)`` for every import, relative ones
    resolved against the module's own package."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(alias.name, (), node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module
            names = tuple(alias.name for alias in node.names)
            found.append((target, names, node.lineno))
            # ``from .. import selectors`` imports the module surveys.selectors.
            found += [(f"{target}.{n}", (), node.lineno) for n in names if n != "*"]
    return found


def within(module, layer):
    return module == layer or module.startswith(layer + ".")


def test_the_import_reader_resolves_relative_imports(tmp_path):
    assert module_name(ROOT / "surveys" / "selectors" / "__init__.py") == "surveys.selectors"
    found = imports_of(ROOT / "surveys" / "services" / "validation.py")
    assert any(target == "surveys.selectors" for target, _names, _line in found)
    assert any(target == "surveys.limits" for target, _names, _line in found)


def crossings(rules=FORBIDDEN):
    for path in modules():
        name = module_name(path)
        for layer, forbidden, why in rules:
            if not within(name, layer):
                continue
            for target, _names, line in imports_of(path):
                for other in forbidden:
                    if within(target, other) and not within(target, layer):
                        yield f"{path.relative_to(ROOT)}:{line} imports {target} ({why})"


def test_a_crossing_is_seen():
    # The views import the services: forbidden by a made-up rule, the reader must see it.
    rule = [("surveys.views", ("surveys.services",), "made up")]
    assert any("surveys/views/common.py" in crossing for crossing in crossings(rule))


def test_no_import_runs_up_a_layer():
    assert list(crossings()) == []


def test_services_take_only_public_names_from_the_selectors():
    private = []
    for path in (ROOT / "surveys" / "services").rglob("*.py"):
        for target, names, line in imports_of(path):
            if not within(target, "surveys.selectors"):
                continue
            hidden = [n for n in names if n.startswith("_")]
            hidden += [part for part in target.split(".") if part.startswith("_")]
            if hidden:
                private.append(f"{path.relative_to(ROOT)}:{line} {target} {hidden}")
        source = path.read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(source)):
            if (
                isinstance(node, ast.Attribute)
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
                and isinstance(node.value, ast.Name)
                and node.value.id in ("selectors", "token_reads")
            ):
                private.append(
                    f"{path.relative_to(ROOT)}:{node.lineno} {node.value.id}.{node.attr}"
                )
    assert private == []


@pytest.mark.parametrize("path", list(modules()), ids=lambda path: str(path.relative_to(ROOT)))
def test_no_module_is_longer_than_the_limit(path):
    relative = str(path.relative_to(ROOT))
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert relative in LONGER_ON_PURPOSE or lines <= MAX_LINES, (
        f"{relative} has {lines} lines (at most {MAX_LINES}): split it by concept"
    )


def test_every_longer_module_is_explained_in_the_architecture_page():
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    for relative in LONGER_ON_PURPOSE:
        assert f"`{relative}`" in page or f"`{Path(relative).name}`" in page
