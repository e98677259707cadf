"""Every room in its layer (docs/architecture.md, "The layers, and why"), read from the source.

Each module's imports are parsed (``ast``, relative imports resolved), so a layer crossed in a
new file fails here before review:

- ``dpengine`` and ``blindrsa`` are plain libraries: no Django, nothing from the app;
- selectors read: they import no service, view, API view, form or export;
- services write: they import no view, API view, form or export, and what they take from the
  selectors is public (no leading underscore);
- exports turn reads into files: no view, API view or form;
- ``models`` and ``limits`` sit under everything: they import no layer of the app;

every module of the app sits in one of ``LAYERS`` (a task module in the layer it calls), imports
only from its own layer and those below it, and no import closes a circle between modules
(``import_graph``, imports inside functions included), within a layer or across layers;
and no module grows past ``MAX_LINES`` (``surveys/models/`` included: the schema is a package
by domain).
"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("surveys", "dpengine", "blindrsa")
MAX_LINES = 450

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


# Every module of the app, from the bottom floor up: a module imports only from its own layer and
# those below it. A name is a package (all its modules) or, in ``EXACT``, that module alone.
LAYERS = (
    ("libraries", ("dpengine", "blindrsa")),
    (
        "beneath every layer",
        (
            *("surveys", "surveys.limits", "surveys.models", "surveys.rate_limits"),
            *("surveys.timezones", "surveys.mail", "surveys.formatting", "surveys.log_filters"),
            *("surveys.qr", "surveys.login_throttle", "surveys.designs"),
        ),
    ),
    ("selectors", ("surveys.selectors",)),
    ("services", ("surveys.services",)),
    # The export job's task (``exports.tasks``) runs an export, so it sits with them.
    ("exports", ("surveys.exports",)),
    (
        "edge",
        (
            *EDGE,
            *("surveys.management", "surveys.admin", "surveys.apps", "surveys.middleware"),
            *("surveys.urls", "surveys.account_urls"),
        ),
    ),
)
EXACT = {"surveys"}


def modules(root=ROOT, packages=PACKAGES):
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            if "migrations" not in path.parts:
                yield path


def module_name(path, root=ROOT):
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path, root=ROOT):
    """``(module imported, names taken from it, line)`` for every import, relative ones
    resolved against the module's own package."""
    name = module_name(path, root)
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


def import_graph(root=ROOT, packages=PACKAGES):
    """``{module: {modules it imports}}`` over the app's own modules. ``from package import
    name`` imports the module ``package.name`` when there is one, else the package itself; an
    import of something inside a module (``a.b.C``) is an import of that module."""
    paths = {module_name(path, root): path for path in modules(root, packages)}

    def nearest(target):
        while target and target not in paths:
            target = target.rpartition(".")[0]
        return target

    graph = {}
    for name, path in paths.items():
        graph[name] = set()
        for target, names, _line in imports_of(path, root):
            if target in paths and names:
                found = {f"{target}.{n}" if f"{target}.{n}" in paths else target for n in names}
            else:
                found = {nearest(target)}
            graph[name] |= {module for module in found if module and module != name}
    return graph


def cycles(graph):
    """The circles of ``graph``: each strongly connected set of two or more modules, sorted
    (Tarjan's algorithm)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            circle = []
            while not circle or circle[-1] != node:
                circle.append(stack.pop())
                on_stack.discard(circle[-1])
            if len(circle) > 1:
                found.append(sorted(circle))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def test_a_planted_cycle_is_seen(tmp_path):
    package = tmp_path / "planted"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from . import b\n")
    (package / "b.py").write_text("from .c import run\n")
    # Imported inside a function: still a circle.
    (package / "c.py").write_text("def run():\n    from planted.a import b\n    return b\n")
    (package / "d.py").write_text("from .a import b\n")
    graph = import_graph(tmp_path, ("planted",))
    assert graph["planted.d"] == {"planted.a"}
    assert cycles(graph) == [["planted.a", "planted.b", "planted.c"]]
    (package / "c.py").write_text("def run():\n    return 1\n")
    assert cycles(import_graph(tmp_path, ("planted",))) == []
    assert cycles({"x": {"y"}, "y": {"x"}, "z": {"z"}}) == [["x", "y"]]


def test_no_import_closes_a_circle():
    assert cycles(import_graph()) == []


def layer_of(module):
    """The index in ``LAYERS`` of the module's layer, its most specific name; None if none."""
    best = None
    for rank, (_layer, names) in enumerate(LAYERS):
        for name in names:
            named = module == name or (name not in EXACT and within(module, name))
            if named and (best is None or len(name) > len(best[1])):
                best = (rank, name)
    return best and best[0]


def test_every_module_sits_in_a_layer():
    outside = [name for name in import_graph() if layer_of(name) is None]
    assert outside == []
    assert layer_of("surveys.newly_added") is None
    assert layer_of("surveys.exports.tasks") == layer_of("surveys.exports.jobs")


def test_no_module_imports_from_a_layer_above_its_own():
    up = [
        f"{module} ({LAYERS[layer_of(module)][0]}) imports {other} ({LAYERS[layer_of(other)][0]})"
        for module, imported in sorted(import_graph().items())
        for other in sorted(imported)
        if layer_of(other) > layer_of(module)
    ]
    assert up == []


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


def too_long(root=ROOT, packages=PACKAGES):
    """``(path, lines)`` for every module longer than ``MAX_LINES``: none is exempt."""
    for path in modules(root, packages):
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_LINES:
            yield str(path.relative_to(root)), lines


def test_a_planted_long_module_is_seen(tmp_path):
    package = tmp_path / "planted"
    (package / "models").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "models" / "__init__.py").write_text("x = 1\n" * MAX_LINES)
    assert list(too_long(tmp_path, ("planted",))) == []
    (package / "models" / "__init__.py").write_text("x = 1\n" * (MAX_LINES + 1))
    assert list(too_long(tmp_path, ("planted",))) == [("planted/models/__init__.py", MAX_LINES + 1)]


def test_no_module_is_longer_than_the_limit():
    assert [
        f"{path} has {lines} lines (at most {MAX_LINES}): split it by concept"
        for path, lines in too_long()
    ] == []
