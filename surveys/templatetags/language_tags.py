"""Language helpers for every page: the BCP 47 form of a language code, for ``lang``."""

from django import template
from django.utils.translation import to_locale

register = template.Library()


@register.filter
def bcp47(code):
    """Django's language code as a BCP 47 tag: "zh-hans" -> "zh-Hans", "ko" -> "ko"."""
    return to_locale(str(code)).replace("_", "-")
