"""The README and docs/ stay walkable: every link resolves, every path they name exists.

- Every Markdown link and image in README.md and docs/*.md: a relative target must exist in
  the repository, and a ``#anchor`` must match a heading of the target page (GitHub's slugs).
  No absolute link leaves the repository: ``ALLOWED_HOSTS`` is empty on purpose, so pages
  work offline and name no third party. Code spans and fenced blocks are not links (a
  ``curl http://...`` example is fine).
- Every path in the README's architecture, "Where is X" and privacy tables, and every path
  docs/architecture.md names, exists; a ``file::test_name`` names a test that exists.
- Every repository path any page names in a code span exists (a moved module shows up here).
"""

import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
ARCHITECTURE = ROOT / "docs" / "architecture.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
ALLOWED_HOSTS: frozenset[str] = frozenset()
TOP_LEVEL = ("bench/", "config/", "deploy/", "docs/", "dpengine/", "locale/", "static/")
TOP_LEVEL += ("surveys/", "templates/", "tests/")
TOP_LEVEL += ("blindrsa/",)
TOP_LEVEL += ("tools/",)
FILE_SUFFIXES = (".py", ".js", ".mjs", ".css", ".html", ".md", ".png", ".toml", ".txt")


# --- reading Markdown ---------------------------------------------------------------------

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def without_fences(text):
    """The text with fenced code blocks blanked (line numbers kept)."""
    lines, fence = [], None
    for line in text.split("\n"):
        opening = FENCE.match(line)
        if fence is None and opening:
            fence = opening.group(1)
            lines.append("")
        elif fence is not None:
            closing = FENCE.match(line)
            if closing and closing.group(1)[0] == fence[0] and len(closing.group(1)) >= len(fence):
                fence = None
            lines.append("")
        else:
            lines.append(line)
    return "\n".join(lines)


CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.DOTALL)
COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)


def prose(text):
    """What GitHub renders as text: no fenced blocks, code spans or HTML comments."""
    text = COMMENT.sub("", without_fences(text))
    return CODE_SPAN.sub(lambda match: " " * len(match.group(0)), text)


def code_spans(text):
    return [match.group(2).strip() for match in CODE_SPAN.finditer(without_fences(text))]


LINK_TEXT = r"\[(?:[^\[\]]|\[[^\[\]]*\])*\]"
INLINE_LINK = re.compile(LINK_TEXT + r"""\(\s*(<[^>]*>|[^\s()]+)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)""")
REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(\S+)", re.MULTILINE)
AUTOLINK = re.compile(r"<((?:https?|ftp|mailto):[^>\s]+)>")
HTML_TARGET = re.compile(r"""\b(?:href|src)\s*=\s*["']([^"']+)["']""")
BARE_URL = re.compile(r"(?:https?://|www\.)[^\s)>\]]+")


def link_targets(text):
    """Every link or image target in the rendered text, nested images included."""
    body = prose(text)
    targets = [m.group(1).strip("<>") for m in INLINE_LINK.finditer(body)]
    # An image inside a link's text ([![alt](a)](b)): the outer match hides the inner one.
    for match in INLINE_LINK.finditer(body):
        targets += [m.group(1).strip("<>") for m in INLINE_LINK.finditer(match.group(0)[1:])]
    targets += REFERENCE.findall(body) + AUTOLINK.findall(body) + HTML_TARGET.findall(body)
    linked = {m.span() for m in INLINE_LINK.finditer(body)}
    targets += [
        m.group(0).rstrip(".,;:!?")
        for m in BARE_URL.finditer(body)
        if not any(start <= m.start() < end for start, end in linked)
    ]
    return list(dict.fromkeys(targets))


HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$", re.MULTILINE)


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    text = re.sub(r"<[^>]+>", "", text).lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path):
    seen, result = {}, set()
    for match in HEADING.finditer(without_fences(path.read_text(encoding="utf-8"))):
        base = slug(match.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        result.add(base if count == 0 else f"{base}-{count}")
    return result


def problem_with(page, target):
    """Why a link target does not resolve, or None."""
    parts = urlsplit(target)
    if parts.scheme or target.startswith(("//", "www.")):
        host = parts.hostname or target.split("/")[0]
        if parts.scheme in ("http", "https") and host in ALLOWED_HOSTS:
            return None
        return "an absolute link (not on the allow-list)"
    if parts.path:
        resolved = (page.parent / unquote(parts.path)).resolve()
        if ROOT not in resolved.parents and resolved != ROOT:
            return "outside the repository"
        if not resolved.exists():
            return "no such file"
    else:
        resolved = page
    if parts.fragment:
        if resolved.suffix != ".md":
            return "an anchor into a file that is not Markdown"
        if unquote(parts.fragment) not in anchors(resolved):
            return f"no heading #{parts.fragment} in {resolved.relative_to(ROOT)}"
    return None


# --- the walker reads Markdown as GitHub does ---------------------------------------------


def test_the_walker_sees_links_and_images_but_not_code():
    text = "\n".join(
        [
            "A [link](docs/a.md#part) and ![an image](docs/screenshots/x.png 'title').",
            "[![badge](img.png)](target.md) and <https://example.org/x>, www.example.org.",
            "Code is not a link: `[not](a.md)`, ``[nor](b.md) with ` inside``.",
            "```sh",
            "curl http://127.0.0.1:8000/ [fenced](c.md)",
            "```",
            "~~~~",
            "```",
            "[still fenced](d.md)",
            "~~~~",
            "<!-- [commented](e.md) -->",
            '<img src="docs/screenshots/y.png" alt="">',
            "[ref]: docs/f.md",
        ]
    )
    assert set(link_targets(text)) == {
        "docs/a.md#part",
        "docs/screenshots/x.png",
        "target.md",
        "img.png",
        "docs/f.md",
        "https://example.org/x",
        "docs/screenshots/y.png",
        "www.example.org",
    }


def test_slugs_follow_github():
    assert slug("The statistics (`dpengine`)") == "the-statistics-dpengine"
    assert slug('Optional questions and "Prefer not to say"') == (
        "optional-questions-and-prefer-not-to-say"
    )
    assert slug("Retakes: memoised pairs (RAPPOR-style), per person and per design") == (
        "retakes-memoised-pairs-rappor-style-per-person-and-per-design"
    )
    assert slug("Accessibility (WCAG 2.2 AA)") == "accessibility-wcag-22-aa"
    assert slug("Where is X") == "where-is-x"


def test_a_broken_link_is_reported(tmp_path):
    page = ROOT / "docs" / "statistics.md"
    assert problem_with(page, "screenshots/results.png") is None
    assert problem_with(page, "../README.md#architecture") is None
    assert problem_with(page, "screenshots/missing.png") == "no such file"
    assert problem_with(page, "../README.md#no-such-heading").startswith("no heading")
    assert problem_with(page, "https://example.org/").startswith("an absolute link")
    assert problem_with(page, "../../etc/passwd") == "outside the repository"


# --- the pages ----------------------------------------------------------------------------


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_link_and_image_resolves(page):
    text = page.read_text(encoding="utf-8")
    targets = link_targets(text)
    problems = {target: problem_with(page, target) for target in targets}
    assert {target: why for target, why in problems.items() if why} == {}
    assert targets, "a page with no link at all is not reachable from the others"


def test_every_page_in_docs_is_linked_from_the_readme():
    linked = {
        (ROOT / urlsplit(target).path).resolve()
        for target in link_targets(README.read_text(encoding="utf-8"))
    }
    assert {page for page in PAGES if page.parent == ROOT / "docs"} <= linked


def test_the_readme_is_short_and_images_have_alt_text():
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 160
    for page in PAGES:
        assert not re.search(r"!\[\]\(", prose(page.read_text(encoding="utf-8"))), page.name


# --- every path the README's tables and the architecture page name exists -----------------


def section(text, heading):
    """The lines under a ``## heading`` up to the next heading of that level or above."""
    start = re.search(rf"^## {re.escape(heading)}\s*$", text, re.MULTILINE)
    assert start, heading
    rest = text[start.end() :]
    end = re.search(r"^#{1,2} ", rest, re.MULTILINE)
    return rest[: end.start()] if end else rest


def looks_like_path(token):
    if token.startswith(("/", ".", "-")) or re.search(r"[\s<>{}*…=(),:]", token.split("::")[0]):
        return False
    return "/" in token or token.endswith(FILE_SUFFIXES)


def named_paths(table):
    """(path, test name or None) for every path token in a Markdown table's rows.

    A row whose first cell is a folder (`surveys/services/`) names its files relative to it,
    unless a path starts with that folder; in a folder of management commands a bare name is a
    command (`seed_demo`).
    """
    found = []
    for row in table.splitlines():
        cells = [cell.strip() for cell in row.strip().strip("|").split("|")]
        if not row.lstrip().startswith("|") or set(cells[0]) <= set("-: "):
            continue
        first = re.fullmatch(r"`([^`]+/)`", cells[0])
        folder = first.group(1) if first else ""
        for token in re.findall(r"`([^`]+)`", " ".join(cells[1:])):
            path, _, test = token.partition("::")
            if folder.endswith("commands/") and re.fullmatch(r"[a-z_]+", path):
                path += ".py"
            if looks_like_path(path):
                found.append((path if path.startswith(folder) else folder + path, test or None))
        if first:
            found.append((folder, None))
    return found


def missing(paths):
    gone = []
    for path, test in paths:
        target = ROOT / path
        if not target.exists():
            gone.append(path)
        elif test and not re.search(
            rf"^(?:async )?def {re.escape(test)}\(", target.read_text(), re.M
        ):
            gone.append(f"{path}::{test}")
    return sorted(set(gone))


def test_named_paths_reads_folders_commands_and_tests():
    table = "\n".join(
        [
            "| folder | what |",
            "| --- | --- |",
            "| `surveys/services/` | `submissions.py`, `surveys/services/errors.py` |",
            "| `surveys/management/commands/` | `seed_demo`, `purge_trash` |",
            "| the coins | `static/js/coins.js`, the `/api/v1/` path, `.po` files |",
            "| a promise | `tests/test_docs.py::test_slugs_follow_github` |",
        ]
    )
    assert named_paths(table) == [
        ("surveys/services/submissions.py", None),
        ("surveys/services/errors.py", None),
        ("surveys/services/", None),
        ("surveys/management/commands/seed_demo.py", None),
        ("surveys/management/commands/purge_trash.py", None),
        ("surveys/management/commands/", None),
        ("static/js/coins.js", None),
        ("tests/test_docs.py", "test_slugs_follow_github"),
    ]
    assert missing([("tests/test_docs.py", "test_no_such_test")]) == [
        "tests/test_docs.py::test_no_such_test"
    ]


@pytest.mark.parametrize(
    "heading", ["Architecture", "Where is X", "Privacy promises, and the tests that keep them"]
)
def test_every_path_in_the_readmes_tables_exists(heading):
    paths = named_paths(section(README.read_text(encoding="utf-8"), heading))
    assert len(paths) >= 5
    assert missing(paths) == []


def test_where_is_x_answers_the_newcomers_questions_in_one_hop():
    table = section(README.read_text(encoding="utf-8"), "Where is X")
    for question in ["the coins", "the submission write", "the estimates", "the regression"]:
        assert f"| {question}" in table, question
    for question in ["the public release", "the CSV export", "the R export", "the throttle"]:
        assert f"| {question}" in table, question


def repository_paths(text):
    """(path, test name or None) for each code span that names a path from the top."""
    found = []
    for token in code_spans(text):
        path, _, test = token.partition("::")
        if path.startswith(TOP_LEVEL) and looks_like_path(path):
            found.append((path, test or None))
    return found


def test_every_path_the_architecture_page_names_exists():
    text = ARCHITECTURE.read_text(encoding="utf-8")
    paths = named_paths(section(text, "Folder by folder")) + repository_paths(text)
    assert len(paths) >= 40
    assert missing(paths) == []


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_repository_path_a_page_names_exists(page):
    assert missing(repository_paths(page.read_text(encoding="utf-8"))) == []


# --- code that points at the documentation points at a section that exists ----------------

POINTER_SOURCES = ("Makefile", ".ci", "bench", "config", "deploy", "dpengine", "static/css")
POINTER_SOURCES += ("static/js", "surveys", "templates", "tests")
POINTER_SUFFIXES = (".py", ".js", ".mjs", ".css", ".html", "", ".toml")
# A quoted section name after the page, across a line break, a comment marker or a string
# concatenation: (docs/researchers.md, "Optional questions"), (README,\n## "Benchmarks").
GAP = r"""[\s,#*/"'(]{0,24}?"""
NAME = r"""["']([A-Z][^"']{0,80}?)["']"""
DOCS_POINTER = re.compile(rf"(docs/[\w-]+\.md){GAP}{NAME}")
README_POINTER = re.compile(rf"README(?:\.md)?{GAP}{NAME}")
LINE_BREAK = re.compile(r"\s*\n\s*(?:#+|//|\*)?\s*")  # a name wrapped in a comment


def pointer_files():
    for source in POINTER_SOURCES:
        path = ROOT / source
        files = [path] if path.is_file() else sorted(path.rglob("*"))
        for file in files:
            if (
                file.is_file()
                and file.suffix in POINTER_SUFFIXES
                and "migrations" not in file.parts
                and file.name not in ("test_docs.py", "test_readme.py")
            ):
                yield file


def headings(path):
    return [
        re.sub(r"[`*]", "", m.group(2)) for m in HEADING.finditer(without_fences(path.read_text()))
    ]


def stale_pointers(text, *, where):
    """Pointers at a section of README.md or docs/ that does not name an existing heading."""
    stale = []
    for page, name in [(ROOT / "README.md", m.group(1)) for m in README_POINTER.finditer(text)] + [
        (ROOT / m.group(1), m.group(2)) for m in DOCS_POINTER.finditer(text)
    ]:
        name = LINE_BREAK.sub(" ", name)
        if not page.exists() or not any(h.startswith(name) for h in headings(page)):
            stale.append(f"{where}: {page.relative_to(ROOT)}, {name!r}")
    return stale


def test_the_pointer_reader_finds_pointers_across_lines_and_strings():
    text = "\n".join(
        [
            '# (docs/researchers.md, "Optional questions")',
            "## systemd timer; docs/deploying.md,",
            '## "Deploying rrsurvey"): it deletes',
            """help="run it daily (README, "\n    "'Deploying rrsurvey').\"""",
            '(docs/statistics.md, "No such section")',
            '# (docs/languages-accessibility.md, "One survey,',
            '# several languages")',
            '// (README, "Optional',
            '// questions")',
        ]
    )
    assert stale_pointers(text, where="x") == [
        "x: README.md, 'Deploying rrsurvey'",
        "x: README.md, 'Optional questions'",
        "x: docs/statistics.md, 'No such section'",
    ]


def test_code_points_only_at_documentation_sections_that_exist():
    stale = []
    for file in pointer_files():
        try:
            text = file.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        stale += stale_pointers(text, where=str(file.relative_to(ROOT)))
    assert stale == []


# --- every repository path the code names (comments, docstrings, strings) exists ----------

SOURCE_SUFFIXES = (".py", ".js", ".mjs", ".html", ".css", ".toml", ".md", ".R", ".sh")
SOURCE_PATH = re.compile(
    r"(?<![\w./-])((?:bench|blindrsa|config|deploy|docs|dpengine|locale|static|surveys|templates"
    r"|tests|tools)/[\w./-]*?\w\.(?:py|js|mjs|html|css|md|json|toml|txt|R))(?![\w/-])"
)
# Files that name made-up paths on purpose (the readers' own tests).
MADE_UP_PATHS = ("test_docs.py", "test_readme.py")


def exists(path):
    """A path from the top, or a template's name (``surveys/results.html``, or an e-mail's
    ``surveys/invitation_email.txt``, as Django and the templates' own {% include %} name
    it)."""
    return (ROOT / path).exists() or (
        path.endswith((".html", ".txt")) and (ROOT / "templates" / path).exists()
    )


def source_files():
    for top in ("bench", "blindrsa", "config", "deploy", "dpengine", "static", "surveys"):
        yield from sorted((ROOT / top).rglob("*"))
    yield from sorted((ROOT / "templates").rglob("*"))
    yield from sorted((ROOT / "tests").rglob("*"))
    yield from sorted((ROOT / "tools").rglob("*"))
    yield ROOT / "Makefile"


def source_paths(text):
    return sorted(set(SOURCE_PATH.findall(text)))


def test_the_source_reader_finds_paths_in_comments_and_strings():
    text = "\n".join(
        [
            "# the SQL (surveys/services/submission_sql.py) and tests/js/body.test.mjs,",
            '"""See docs/statistics.md."""  // static/js/coins.js: the memo',
            "{# templates/respond/respond.html #} x/surveys/not.py surveys/<slug>/ '/s/<slug>/'",
        ]
    )
    assert source_paths(text) == [
        "docs/statistics.md",
        "static/js/coins.js",
        "surveys/services/submission_sql.py",
        "templates/respond/respond.html",
        "tests/js/body.test.mjs",
    ]


def test_every_repository_path_the_code_names_exists():
    stale = []
    for file in source_files():
        if (
            not file.is_file()
            or file.suffix not in (*SOURCE_SUFFIXES, "")
            or file.name in MADE_UP_PATHS
            or "vendor" in file.parts
            or "__pycache__" in file.parts
        ):
            continue
        try:
            text = file.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        where = file.relative_to(ROOT)
        # A README inside a folder names its files from there (tests/README.md: surveys/...).
        stale += [
            f"{where}: {path}"
            for path in source_paths(text)
            if not exists(path) and not (file.parent / path).exists()
        ]
    assert stale == []


def test_the_architecture_page_names_every_module():
    text = ARCHITECTURE.read_text(encoding="utf-8")
    named = {path for path, _test in named_paths(section(text, "Folder by folder"))}
    named |= {path for path, _test in repository_paths(text)}
    unnamed = [
        str(path.relative_to(ROOT))
        for top in ("surveys", "dpengine", "blindrsa")
        for path in sorted((ROOT / top).rglob("*.py"))
        if path.name != "__init__.py"
        and "migrations" not in path.parts
        and str(path.relative_to(ROOT)) not in named
    ]
    assert unnamed == []
