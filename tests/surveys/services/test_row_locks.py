"""Every row lock in surveys/ is taken inside ``transaction.atomic``.

Outside a transaction, ``select_for_update`` is a ``TransactionManagementError`` on
PostgreSQL (a 500; issue 24 found ``survey_delete`` leaving a deleted survey open that way) and
silently nothing on SQLite, and pytest-django's per-test transaction hides a missing
``atomic`` from every ordinary test. Two checks close that:

- statically, from the source: each lock (``.select_for_update(...)``, or raw SQL with
  ``SELECT ... FOR UPDATE``) is lexically inside a function decorated with
  ``transaction.atomic`` or a ``with transaction.atomic(...)`` block, or in a function that
  begins its transaction by hand in SQL (a statement text starting ``BEGIN``, as
  ``batches._settle_postgresql`` sends it with its first statements in one round trip), or it
  is in a helper every use of which (call or reference, anywhere in surveys/) is, recursively;
- at run time, in tests that run outside a test transaction (``lock_recorder`` of
  tests/helpers.py, used by tests/surveys/services/test_write_routes.py for every write
  route): a locking query compiled while the connection is in autocommit is recorded.
"""

import ast
import re
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.db import connection, transaction

from surveys import services
from surveys.models import Survey
from tests.helpers import answers_for, lock_recorder

ROOT = Path(__file__).resolve().parents[3]
SOURCE = ROOT / "surveys"

SQL_LOCK = re.compile(r"\bSELECT\b[\s\S]*\bFOR\s+UPDATE\b", re.IGNORECASE)


@dataclass(frozen=True)
class Site:
    """A lock, or a use of a function that takes one, and where it is."""

    path: str
    line: int
    function: str | None  # innermost enclosing function; None at module level
    method: bool  # that function is a class's method (a view's get/post/delete, ...)
    atomic: bool  # lexically inside transaction.atomic (decorator or with-block)

    def __str__(self):
        where = f"in {self.function}()" if self.function else "at module level"
        return f"{self.path}:{self.line} {where}"


def _is_atomic(node) -> bool:
    """``transaction.atomic``, ``atomic``, either called (``atomic(using=...)``), or
    ``method_decorator(transaction.atomic)``."""
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Name | ast.Attribute) and _name(func) == "method_decorator":
            return any(_is_atomic(arg) for arg in node.args)
        node = func
    return isinstance(node, ast.Name | ast.Attribute) and _name(node) == "atomic"


def _name(node):
    return node.id if isinstance(node, ast.Name) else node.attr


def _string(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):  # f-string: its literal parts
        return " ".join(
            part.value
            for part in node.values
            if isinstance(part, ast.Constant) and isinstance(part.value, str)
        )
    return None


BEGIN_SQL = re.compile(r"^\s*BEGIN\b", re.IGNORECASE)


def _begins_by_hand(function) -> bool:
    """Whether ``function`` sends a statement text that begins a transaction (``BEGIN; ...``)."""
    return any(
        BEGIN_SQL.match(_string(node) or "")
        for node in ast.walk(function)
        if isinstance(node, ast.Constant | ast.JoinedStr)
    )


class _Scanner(ast.NodeVisitor):
    def __init__(self, path):
        self.path = path
        self.scopes = []  # stack of enclosing (function name, is a method); None for a class
        self.atomic_depth = 0
        self.locks = []  # Site of each lock
        self.uses = []  # (name, Site) of each call or reference by name

    def _site(self, node):
        functions = [i for i, scope in enumerate(self.scopes) if scope is not None]
        innermost = functions[-1] if functions else None
        return Site(
            path=self.path,
            line=node.lineno,
            function=None if innermost is None else self.scopes[innermost],
            method=innermost is not None and innermost > 0 and self.scopes[innermost - 1] is None,
            atomic=self.atomic_depth > 0,
        )

    def visit_FunctionDef(self, node):
        for decorator in node.decorator_list:
            self.visit(decorator)
        atomic = any(_is_atomic(d) for d in node.decorator_list) or _begins_by_hand(node)
        self.scopes.append(node.name)
        self.atomic_depth += atomic
        for child in [*node.args.defaults, *node.args.kw_defaults, *node.body]:
            if child is not None:
                self.visit(child)
        self.atomic_depth -= atomic
        self.scopes.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        for child in [*node.bases, *node.decorator_list]:
            self.visit(child)
        self.scopes.append(None)
        for child in node.body:
            self.visit(child)
        self.scopes.pop()

    def visit_With(self, node):
        atomic = any(_is_atomic(item.context_expr) for item in node.items)
        for item in node.items:
            self.visit(item)
        self.atomic_depth += atomic
        for child in node.body:
            self.visit(child)
        self.atomic_depth -= atomic

    def visit_Expr(self, node):
        if _string(node.value) is None:  # a docstring is prose, not SQL
            self.visit(node.value)

    def visit_Call(self, node):
        if isinstance(node.func, ast.Attribute) and node.func.attr == "select_for_update":
            self.locks.append(self._site(node))
        self.generic_visit(node)

    def visit_Constant(self, node):
        self._sql(node)

    def visit_JoinedStr(self, node):
        self._sql(node)

    def _sql(self, node):
        text = _string(node)
        if text and SQL_LOCK.search(text):
            self.locks.append(self._site(node))

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load):
            self.uses.append((node.id, self._site(node)))

    def visit_Attribute(self, node):
        if isinstance(node.ctx, ast.Load):
            self.uses.append((node.attr, self._site(node)))
        self.generic_visit(node)


def unguarded_locks(sources) -> list[str]:
    """For ``{path: source}``, each lock that can run outside ``transaction.atomic``, with the
    chain of uses that reaches it unguarded (empty when every lock is guarded)."""
    locks, uses = [], []
    for path, source in sources.items():
        scanner = _Scanner(path)
        scanner.visit(ast.parse(source, filename=path))
        locks += scanner.locks
        uses += scanner.uses
    # Functions that take a lock (directly or through another such function) outside any
    # atomic of their own: each of their uses must provide the transaction.
    needing = set()
    pending = [(site, (site,)) for site in locks if not site.atomic]  # (site, lock ... site)
    problems = []
    while pending:
        site, chain = pending.pop()
        if site.function is None or site.method:
            # Module level, or a method: views' get/post/delete are dispatched by Django, and
            # a method's uses cannot be told apart by name (``.delete()`` is everywhere).
            problems.append(chain)
            continue
        if (site.path, site.function) in needing:
            continue
        needing.add((site.path, site.function))
        found = [
            use
            for name, use in uses
            if name == site.function  # not its own recursion:
            and (use.path, use.function) != (site.path, site.function)
        ]
        if not found:
            problems.append(chain)  # reached from outside surveys/ (a URL, Django): no atomic
        pending += [(use, (*chain, use)) for use in found if not use.atomic]
    return sorted(" <- ".join(map(str, chain)) for chain in problems)


def _sources(**replaced):
    sources = {
        str(path.relative_to(ROOT)): path.read_text()
        for path in sorted(SOURCE.rglob("*.py"))
        if "migrations" not in path.parts
    }
    sources.update(replaced)
    return sources


@pytest.mark.slow
def test_every_row_lock_in_surveys_is_inside_transaction_atomic():
    problems = unguarded_locks(_sources())
    assert problems == [], (
        "These row locks can run outside transaction.atomic (a 500 on PostgreSQL, nothing on "
        "SQLite); decorate the function with @transaction.atomic or wrap the lock:\n"
        + "\n".join(problems)
    )


@pytest.mark.slow
def test_the_static_check_finds_the_survey_delete_bug():
    """Take the ``atomic`` off ``survey_delete`` again: the check names the lock and the two
    routes that reach it (the page and the API)."""
    path = "surveys/services/surveys.py"
    source = _sources()[path]
    bug = source.replace("@transaction.atomic\ndef survey_delete(", "def survey_delete(")
    assert bug != source
    problems = unguarded_locks(_sources(**{path: bug}))
    assert problems, "the check missed a lock outside atomic"
    assert all(p.startswith("surveys/services/surveys.py:") for p in problems)
    joined = "\n".join(problems)
    assert "in survey_delete()" in joined
    assert "surveys/views/researcher.py" in joined
    assert "surveys/api/researcher.py" in joined


@pytest.mark.parametrize(
    ("source", "guarded"),
    [
        ("def f(s):\n    return S.objects.select_for_update().get(pk=s)\n", False),
        (
            "@transaction.atomic\ndef f(s):\n    return S.objects.select_for_update().get(pk=s)\n",
            True,
        ),
        (
            "def f(s):\n    with transaction.atomic(using='x'), c.cursor():\n"
            "        return S.objects.select_for_update().get(pk=s)\n",
            True,
        ),
        # A helper is fine when every use is inside a transaction...
        (
            "def lock(s):\n    return S.objects.select_for_update().get(pk=s)\n"
            "@transaction.atomic\ndef f(s):\n    return lock(s)\n",
            True,
        ),
        # ...and not when one use is not, called or passed on.
        (
            "def lock(s):\n    return S.objects.select_for_update().get(pk=s)\n"
            "@transaction.atomic\ndef f(s):\n    return lock(s)\n"
            "def g(s):\n    return run(lock)\n",
            False,
        ),
        ('def f(c):\n    c.execute(f"SELECT 1 FROM {t} WHERE k = %s FOR UPDATE")\n', False),
        ('def f(c):\n    """Read it FOR UPDATE: SELECT ... FOR UPDATE."""\n', True),
        ("LOCKED = S.objects.select_for_update()\n", False),
    ],
)
def test_the_static_check_on_small_sources(source, guarded):
    assert (unguarded_locks({"m.py": source}) == []) == guarded


# --- at run time ----------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_the_recorder_sees_a_lock_taken_in_autocommit(make_survey):
    survey = make_survey()
    with lock_recorder() as outside:
        with transaction.atomic():
            Survey.objects.select_for_update().get(pk=survey.pk)
        assert outside == []
        try:
            Survey.objects.select_for_update().get(pk=survey.pk)
        except Exception as exc:  # PostgreSQL refuses it; SQLite runs it unlocked
            assert connection.vendor == "postgresql", exc
    assert len(outside) == 1 and "surveys_survey" in outside[0]


@pytest.mark.django_db(transaction=True)
def test_services_that_lock_do_so_in_a_transaction_of_their_own(make_survey, owner):
    """Each locking service, called as a view calls it (no transaction around it)."""
    with lock_recorder() as outside:
        survey = make_survey(status=Survey.Status.DRAFT, questions=["Q1?", "Q2?"])
        services.survey_update(survey=survey, data={"title": "Renamed"})
        services.survey_pilot_start(survey=survey)
        services.survey_pilot_discard(survey=survey)
        services.survey_open(survey=survey)
        services.submission_receive(
            slug=survey.slug, submission_id=uuid.uuid4(), answers=answers_for(survey, [True, False])
        )
        services.survey_close(survey=survey)
        services.survey_delete(survey=survey)
        services.survey_restore(owner=owner, survey_id=survey.pk)
    assert outside == []
    row = Survey.all_objects.get(pk=survey.pk)
    assert (row.title, row.status, row.deleted_at) == ("Renamed", Survey.Status.CLOSED, None)
    assert row.submissions.count() == 1


@pytest.mark.slow
def test_a_transaction_begun_by_hand_counts_only_while_its_begin_is_there():
    """``batches._settle_postgresql`` begins its transaction in its first statement text: take
    the ``BEGIN`` out and the release's lock it reaches is named again."""
    path = "surveys/services/batches.py"
    source = _sources()[path]
    bug = source.replace('f"BEGIN; {INDEX_SCAN}', 'f"{INDEX_SCAN}')
    assert bug != source
    joined = "\n".join(unguarded_locks(_sources(**{path: bug})))
    assert "in _settle_postgresql()" in joined
    assert "surveys/services/batch_rows.py" in joined
