"""The test files for a changed module, for ``make test-module M=path/to/module.py``.

    python -m tests.for_module surveys/services/invitations.py [more paths]

prints, one a line, the test files to run for each path:

- its mirrored file: ``tests/<same folder>/test_<name>.py``, with the files of the same name
  split by topic (``test_<name>_*.py``); for a package (its folder or its ``__init__.py``),
  ``tests/<parent>/test_<package>*.py`` and the folder ``tests/<package path>/`` if there is one;
- every test file that names the module: imports it or something from it (``from
  surveys.services import invitations``, ``from surveys.services.invitations import ...``),
  imports a name its packages re-export from it (``from dpengine import Warner`` for
  ``dpengine/designs/warner.py``, through ``dpengine/designs/__init__.py`` and
  ``dpengine/__init__.py``), or holds its dotted name in a string
  (``mock.patch("surveys.services.invitations....")``).

A test file (under ``tests/``) stands for itself. A name reached as an attribute of an imported
package (``services.invitation_create`` after ``from surveys import services``) is not followed:
the mirrored file is what holds such a module.
"""

import ast
import sys
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"


def dotted_name(path):
    """``surveys/services/invitations.py`` -> ``surveys.services.invitations``."""
    parts = list(path.with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def mirrored_files(path, root=ROOT):
    """The test files of ``path`` (relative to ``root``) at its mirrored place."""
    tests = root / "tests"
    if path.name == "__init__.py" or (root / path).is_dir():
        package = path.parent if path.name == "__init__.py" else path
        folder, stem = tests / package.parent, package.name
        found = [tests / package] if (tests / package).is_dir() else []
    else:
        folder, stem = tests / path.parent, path.stem
        found = []
    if folder.is_dir():
        found += sorted(folder.glob(f"test_{stem}.py")) + sorted(folder.glob(f"test_{stem}_*.py"))
    # A module of a package tested beside the package: submissions/contract.py in
    # tests/surveys/services/test_submissions_contract.py.
    outer = tests / path.parent.parent
    if path.name != "__init__.py" and outer.is_dir():
        found += sorted(outer.glob(f"test_{path.parent.name}_{path.stem}.py"))
    return found


@cache
def names_in(test_file):
    """Dotted names a test file imports (module and module.name) or spells in a string."""
    tree = ast.parse(test_file.read_text(), filename=str(test_file))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and "." in node.value
            and " " not in node.value
            and len(node.value) < 200
        ):
            names.add(node.value)
    return frozenset(names)


def _imports_of_package(package):
    """``(module, name, as_name)`` for each ``from module import name`` of ``package``'s
    ``__init__.py`` (relative imports resolved)."""
    init = ROOT / package.replace(".", "/") / "__init__.py"
    if not init.exists():
        return []
    found = []
    for node in ast.parse(init.read_text()).body:
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1]
            module = ".".join(base + ([node.module] if node.module else []))
            if not node.level:
                module = node.module
            found += [(module, alias.name, alias.asname or alias.name) for alias in node.names]
    return found


def reexported_names(module):
    """The dotted names under which the module's packages re-export what it defines."""
    carried = {module: None}  # module -> the names it carries (None: all of its own)
    names = set()
    parts = module.split(".")
    for depth in range(len(parts) - 1, 0, -1):
        package = ".".join(parts[:depth])
        own = set()
        for source, name, as_name in _imports_of_package(package):
            from_module = source in carried and (carried[source] is None or name in carried[source])
            if from_module or f"{source}.{name}" in carried:  # or: from package import module
                own.add(as_name)
        if own:
            carried[package] = own
            names.update(f"{package}.{name}" for name in own)
    return names


def naming_files(module):
    reexported = reexported_names(module)
    return [
        test_file
        for test_file in sorted(TESTS.rglob("test_*.py"))
        if any(
            name == module or name.startswith(module + ".") or name in reexported
            for name in names_in(test_file)
        )
    ]


def test_files_for(path):
    path = Path(path)
    if path.is_absolute():
        path = path.relative_to(ROOT)
    if not (ROOT / path).exists():
        raise SystemExit(f"{path}: no such file or folder in {ROOT}")
    if path.parts[0] == "tests":
        return [ROOT / path]
    found = mirrored_files(path) + naming_files(dotted_name(path))
    return list(dict.fromkeys(found))


def main(paths):
    if not paths:
        raise SystemExit("usage: python -m tests.for_module path/to/module.py [...]")
    found = list(dict.fromkeys(f for path in paths for f in test_files_for(path)))
    if not found:
        raise SystemExit(f"no test file mirrors or names {' '.join(paths)}")
    for test_file in found:
        print(test_file.relative_to(ROOT))


if __name__ == "__main__":
    main(sys.argv[1:])
