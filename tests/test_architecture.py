"""What docs/architecture.md says about where things live, and how many places hold them, read
from the source (tests/test_docs.py checks that every path it names exists; this file checks
the rest of its claims of place):

- every ``services.<name>``, ``selectors.<name>``, ``dpengine.<name>``, ``models.<name>`` or
  ``Rule.<name>`` the page names exists, and so does every ``services.<name>`` and
  ``selectors.<name>`` the code calls (the packages re-export what their callers use);
- a name written beside a file (`` `answers.py` `clean_answers` ``) is defined in that file;
- the layers are listed in the order of ``LAYERS`` (tests/test_layers.py);
- the counts: who imports dpengine and ``limits``; the one module that maps a question to its
  mechanism, the one function that renames a numeric range for dpengine, the one that compares
  with the ε ceiling and the one that refuses it; the exports of ``static/js/constants.js``;
  no list of design kinds typed by hand, wherever it would be.
"""

import ast
import re
from pathlib import Path

import dpengine
from surveys import selectors, services
from surveys.services.submissions import contract
from tests.for_module import mirrored_files
from tests.test_docs import code_spans, without_fences
from tests.test_layers import LAYERS, imports_of, module_name, modules, within

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "architecture.md"
TEXT = PAGE.read_text(encoding="utf-8")
SEARCHED = ("surveys", "dpengine", "blindrsa", "static/js", "tools")


def surveys_modules():
    return list(modules(packages=("surveys",)))


def relative(path):
    return str(path.relative_to(ROOT))


# --- names ----------------------------------------------------------------------------------

DOTTED = re.compile(r"\b(services|selectors|dpengine|models|Rule)((?:\.\w+)+)")
ROOTS = {
    "services": services,
    "selectors": selectors,
    "dpengine": dpengine,
    "models": __import__("surveys.models", fromlist=["models"]),
    "Rule": contract.Rule,
}


def resolves(root, path):
    """Whether ``root.a.b`` names something: an attribute, or a submodule of a package."""
    found = ROOTS[root]
    for part in path.strip(".").split("."):
        if hasattr(found, part):
            found = getattr(found, part)
            continue
        name = getattr(found, "__name__", None)
        try:
            found = __import__(f"{name}.{part}", fromlist=[part]) if name else None
        except ImportError:
            found = None
        if found is None:
            return False
    return True


def named_in(spans):
    return sorted({f"{m.group(1)}{m.group(2)}" for span in spans for m in DOTTED.finditer(span)})


def test_the_name_reader_sees_a_missing_name():
    assert resolves("services", ".survey_create")
    assert not resolves("services", ".create_survey")
    assert resolves("services", ".validation.ensure_within_epsilon_ceiling")
    assert resolves("Rule", ".ACCEPTING") and not resolves("Rule", ".NO_SUCH_RULE")
    assert named_in(["from surveys import services; services.create_survey(...)"]) == [
        "services.create_survey"
    ]


def test_every_name_the_page_names_exists():
    missing = [
        name
        for name in named_in(code_spans(TEXT))
        if not resolves(name.split(".", 1)[0], "." + name.split(".", 1)[1])
    ]
    assert missing == []


def test_every_name_the_code_takes_from_the_packages_exists():
    """``services.X`` / ``selectors.X`` wherever a module imported the package itself."""
    missing = []
    for path in [*surveys_modules(), *sorted((ROOT / "tests").rglob("*.py"))]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = {
            alias.asname or alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module in ("surveys", None)
            for alias in node.names
            if alias.name in ("services", "selectors")
        }
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in imported
                and node.value.id in ("services", "selectors")
                and not resolves(node.value.id, "." + node.attr)
            ):
                missing.append(f"{relative(path)}:{node.lineno} {node.value.id}.{node.attr}")
    assert missing == []


# --- a name beside its file -----------------------------------------------------------------

BESIDE = re.compile(r"`([\w/.-]+\.(?:py|js))`(?:'s)?((?:,? (?:and )?`[A-Za-z_]\w*`)+)")


def files_named(name):
    """The files a page means by ``name``: the path itself, or every file of that name."""
    if (ROOT / name).is_file():
        return [ROOT / name]
    return [
        path
        for folder in SEARCHED
        for path in (ROOT / folder).rglob(Path(name).name)
        if str(path).endswith(name)
    ]


def defines(path, name):
    source = path.read_text(encoding="utf-8")
    if path.suffix == ".js":
        return re.search(rf"\b(?:function\*?|const|let|var|class)\s+{name}\b", source) is not None
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            if node.name == name:
                return True
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                return True
    return False


def names_beside_files(text):
    for match in BESIDE.finditer(without_fences(text)):
        for name in re.findall(r"`(\w+)`", match.group(2)):
            yield match.group(1), name


def test_the_beside_reader_pairs_a_file_with_its_names():
    text = "`services/schedule.py` `phase`; `dpengine/tallies.py` `report_tally`, `tally_sum`"
    assert list(names_beside_files(text)) == [
        ("services/schedule.py", "phase"),
        ("dpengine/tallies.py", "report_tally"),
        ("dpengine/tallies.py", "tally_sum"),
    ]
    (schedule,) = files_named("services/schedule.py")
    assert defines(schedule, "phase") and not defines(schedule, "no_such_name")


def test_every_name_written_beside_a_file_is_defined_there():
    pairs = list(names_beside_files(TEXT))
    assert len(pairs) >= 10  # the submission contract's table alone names more
    wrong = [
        f"{file} {name}"
        for file, name in pairs
        if not any(defines(path, name) for path in files_named(file))
    ]
    assert wrong == []


# --- the layers -----------------------------------------------------------------------------


def test_the_page_lists_the_floors_in_the_order_of_layers():
    paragraph = TEXT[TEXT.index("**No import runs up a layer") :]
    paragraph = paragraph[: paragraph.index("\n- **")]
    places = [paragraph.find(floor) for floor, _names in LAYERS]
    assert -1 not in places, [floor for floor, _names in LAYERS]
    assert places == sorted(places)


def test_only_services_selectors_and_exports_import_dpengine():
    importers = {
        module_name(path)
        for path in surveys_modules()
        for target, _names, _line in imports_of(path)
        if within(target, "dpengine")
    }
    allowed = ("surveys.services", "surveys.selectors", "surveys.exports")
    assert sorted(m for m in importers if not any(within(m, a) for a in allowed)) == [
        "surveys.designs",
        "surveys.formatting",
    ]


def test_the_schema_forms_serializers_and_services_read_the_bounds_from_limits():
    readers = {
        module_name(path)
        for path in surveys_modules()
        if any(within(target, "surveys.limits") for target, _n, _l in imports_of(path))
    }
    for layer in ("surveys.models", "surveys.forms", "surveys.api.serializers", "surveys.services"):
        assert any(within(reader, layer) for reader in readers), layer


def test_no_module_takes_a_private_name_from_another():
    private = [
        f"{relative(path)}:{line} {target} {name}"
        for path in surveys_modules()
        for target, names, line in imports_of(path)
        if target and within(target, "surveys")
        for name in names
        if name.startswith("_") and not name.startswith("__")
    ]
    assert private == []


def test_the_counters_are_shared_from_one_module():
    for module in ("surveys.api.throttling", "surveys.login_throttle"):
        path = ROOT / (module.replace(".", "/") + ".py")
        assert any(within(t, "surveys.rate_limits") for t, _n, _l in imports_of(path)), module


# --- one place ------------------------------------------------------------------------------


def calls(path):
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            yield name, node


MECHANISMS = ROOT / "surveys" / "selectors" / "mechanisms.py"


def test_only_mechanisms_builds_a_questions_design_or_mechanism():
    classes = {
        cls.__name__ for cls in (*dpengine.DESIGNS.values(), *dpengine.CHEATING_DESIGNS.values())
    }
    classes |= {"BoundedNumeric", "KaryRandomizedResponse"}
    built = []
    for path in surveys_modules():
        for name, node in calls(path):
            if name not in classes or path == MECHANISMS:
                continue
            coins = name == "ForcedResponse" and {k.arg for k in node.keywords} == {
                "p_truth",
                "p_forced_yes",
            }
            if not coins:
                built.append(f"{relative(path)}:{node.lineno} {name}")
    assert built == []
    assert {name for name, _node in calls(MECHANISMS)} >= {
        "BoundedNumeric",
        "KaryRandomizedResponse",
    }


def test_a_numeric_range_is_renamed_for_dpengine_in_one_function():
    """``min_value``/``max_value`` become dpengine's ``lo``/``hi`` in ``numeric_bounds`` alone:
    no call passes a column as ``lo=``/``hi=``, and no other function spells ``"lo"`` beside
    ``min_value``."""
    handing, renaming = set(), set()
    for path in surveys_modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for _name, node in calls(path):
            for keyword in node.keywords:
                if keyword.arg in ("lo", "hi") and ast.unparse(keyword.value).endswith(
                    ("min_value", "max_value")
                ):
                    handing.add(relative(path))
        for function in ast.walk(tree):
            if isinstance(function, ast.FunctionDef):
                source = ast.unparse(function)
                if "min_value" in source and ("'lo'" in source or '"lo"' in source):
                    renaming.add(f"{relative(path)} {function.name}")
    assert handing == set()
    assert renaming == {"surveys/selectors/mechanisms.py numeric_bounds"}


def test_the_epsilon_ceiling_is_compared_in_one_function_and_refused_in_one():
    comparing, refusing = set(), set()
    for path in surveys_modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef):
                continue
            for node in ast.walk(function):
                source = ast.unparse(node) if isinstance(node, ast.Compare) else ""
                if "ceiling" in source.lower() or "MAX_EPSILON" in source:
                    comparing.add(f"{relative(path)} {function.name}")
                if (
                    within(module_name(path), "surveys.services")
                    and isinstance(node, ast.Call)
                    and ast.unparse(node.func).endswith("exceeds_epsilon_ceiling")
                ):
                    refusing.add(f"{relative(path)} {function.name}")
    assert comparing == {"surveys/selectors/mechanisms.py exceeds_epsilon_ceiling"}
    assert refusing == {"surveys/services/validation.py ensure_within_epsilon_ceiling"}


def test_the_runtime_constants_are_the_ones_the_page_lists():
    exported = re.findall(
        r"^export const (\w+)", (ROOT / "static/js/constants.js").read_text(), re.MULTILINE
    )
    bullet = TEXT[TEXT.index("`static/js/constants.js`, the values the pages need at run time") :]
    bullet = bullet[: bullet.index("\n- ")]
    listed = [span for span in code_spans(bullet) if re.fullmatch(r"[A-Z_]+", span)]
    assert sorted(listed) == sorted(exported)


# --- lists typed by hand --------------------------------------------------------------------


def design_kind_lists():
    """Every file of the app or the browser that spells out the yes/no design kinds as a
    literal list, with the list."""
    kinds = set(dpengine.DESIGNS)
    for path in surveys_modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.List | ast.Tuple) and node.elts:
                values = [getattr(e, "value", None) for e in node.elts]
                if all(isinstance(v, str) for v in values) and set(values) == kinds:
                    yield relative(path), values
    for path in sorted((ROOT / "static" / "js").glob("*.js")):
        for listed in re.findall(r"\[([^\[\]]*)\]", path.read_text(encoding="utf-8")):
            values = re.findall(r'"(\w+)"', listed)
            bare = re.sub(r'"\w+"|[\s,]', "", listed)
            if values and not bare and set(values) == kinds:
                yield relative(path), values


def test_no_list_of_design_kinds_is_typed_by_hand():
    # The generated constants module lists them (tests/tools/test_constants.py holds it to
    # the table).
    found = [path for path, _values in design_kind_lists() if path != "static/js/constants.js"]
    assert found == []
    assert "static/js/constants.js" in {path for path, _values in design_kind_lists()}


def test_a_range_is_min_and_max_outside_the_one_pair_of_mapping_functions():
    # dpengine names a numeric range lo/hi; the model, API, forms, estimate rows, pages, tools
    # and browser name it min/max, and only selectors/mechanisms.py (numeric_bounds on the
    # way in, numeric_range on the way out) reads or passes dpengine's names.
    paths = [*surveys_modules(), *sorted((ROOT / "tools").glob("*.py"))]
    found = set()
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            attribute = isinstance(node, ast.Attribute) and node.attr in {"lo", "hi"}
            if attribute or (isinstance(node, ast.keyword) and node.arg in {"lo", "hi"}):
                found.add(relative(path))
    assert found == {"surveys/selectors/mechanisms.py"}
    for path in sorted((ROOT / "static" / "js").glob("*.js")):
        code = re.sub(r"//.*|/\*[\s\S]*?\*/", "", path.read_text(encoding="utf-8"))
        assert not re.search(r"\b(lo|hi)\b", code), relative(path)


# --- every module with logic has its mirrored test file -------------------------------------

MIRRORED = ("surveys", "dpengine", "blindrsa", "tools")
# Modules with logic that have no test file of their own, and why none is needed.
NO_TEST_FILE_NEEDED = {
    # Django's wiring: the app's configuration and the URL map are what every page test loads
    # (tests/routes.py and tests/surveys/views/test_common.py walk the URL map route by route).
    "surveys/apps.py": "loaded by every test",
    "surveys/urls.py": "walked route by route by tests/surveys/views/test_common.py",
}
# Modules with logic whose tests are still in files named by feature, from before the rule
# (tests/unmirrored.txt, one path a line). It only shrinks: a module that gains its mirrored
# file must leave it, and a new module gets its file.
UNMIRRORED = ROOT / "tests" / "unmirrored.txt"


def has_logic(path):
    """A module with a function, or a class with a method (not re-exports, constants or bare
    exception classes)."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            return True
        if isinstance(node, ast.ClassDef) and any(
            isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) for child in node.body
        ):
            return True
    return False


def without_mirrored_tests(root=ROOT, packages=MIRRORED):
    """Each module with logic (migrations aside) that no mirrored test file tests, by path."""
    for path in modules(root, packages=packages):
        relative_path = path.relative_to(root)
        if has_logic(path) and not mirrored_files(relative_path, root):
            yield str(relative_path)


def unmirrored():
    lines = UNMIRRORED.read_text(encoding="utf-8").splitlines()
    return {line for line in lines if line and not line.startswith("#")}


def test_a_module_without_its_test_file_is_seen(tmp_path):
    package = tmp_path / "planted"
    package.mkdir()
    (package / "__init__.py").write_text("from .plain import plain\n")
    (package / "plain.py").write_text("def plain():\n    return 1\n")
    (package / "names.py").write_text("NAMES = ('a', 'b')\n")
    (package / "refusal.py").write_text("class Refused(Exception):\n    pass\n")
    assert [Path(path).name for path in without_mirrored_tests(tmp_path, ("planted",))] == [
        "plain.py"
    ]
    (tmp_path / "tests" / "planted").mkdir(parents=True)
    (tmp_path / "tests" / "planted" / "test_plain.py").write_text("")
    assert list(without_mirrored_tests(tmp_path, ("planted",))) == []


def test_every_module_with_logic_has_its_mirrored_test_file():
    """``tests/<its folder>/test_<module>.py`` (or ``test_<module>_<topic>.py``;
    tests/for_module.py's ``mirrored_files``), which ``make test-module`` runs first."""
    missing = set(without_mirrored_tests()) - set(NO_TEST_FILE_NEEDED) - unmirrored()
    assert sorted(missing) == []


def test_the_list_of_modules_without_a_test_file_only_shrinks():
    """A listed module that has its file now, or no longer exists, leaves the list."""
    assert sorted(unmirrored() - set(without_mirrored_tests())) == []
