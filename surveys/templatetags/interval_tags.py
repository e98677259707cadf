"""How the pages name an interval method (formatting only)."""

from django import template

from ..models import CI_METHODS

register = template.Library()


@register.filter
def ci_method_label(code):
    """``"exact"`` -> "Clopper–Pearson (exact)", as the method menus name it."""
    return dict(CI_METHODS).get(code, code)
