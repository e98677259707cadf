"""Every serializer lives in the serializers package (surveys/api/serializers/): an API view or
page that needs a request or response shape imports it from there, so a shape is found in one
place and a view module holds only views."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PACKAGE = ROOT / "surveys" / "api" / "serializers"


def declared_serializers(path):
    """The classes ``path`` declares that are serializers or serializer fields, by their bases'
    names (``serializers.Serializer``, ``RejectUnknownFieldsMixin, ...``, ``...Serializer``)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.ClassDef):
            continue
        bases = [ast.unparse(base) for base in node.bases]
        if any(base.startswith("serializers.") or base.endswith("Serializer") for base in bases):
            found.append(node.name)
    return found


def test_the_reader_sees_a_serializer_declared_in_a_view_module(tmp_path):
    planted = tmp_path / "views.py"
    planted.write_text(
        "from rest_framework import serializers\n"
        "class Shape(serializers.Serializer):\n    pass\n"
        "class Wider(Shape, Other):\n    pass\n"
        "class Row(BaseRowSerializer):\n    pass\n"
        "class View(APIView):\n    pass\n"
    )
    assert declared_serializers(planted) == ["Shape", "Row"]


def test_no_module_outside_the_package_declares_a_serializer():
    outside = {
        str(path.relative_to(ROOT)): names
        for path in sorted((ROOT / "surveys").rglob("*.py"))
        if PACKAGE not in path.parents and "migrations" not in path.parts
        if (names := declared_serializers(path))
    }
    assert outside == {}
