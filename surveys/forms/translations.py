"""The builder's Translations form: one input per text of the survey and other language."""

from django import forms
from django.utils.translation import get_language_info
from django.utils.translation import gettext as _

from ..selectors.languages import TEXT_MAX_LENGTHS

# Texts that are usually one line get a one-line input; the others a small text area.
ONE_LINE = ("title", "label", "options")


class TranslationsForm(forms.Form):
    """Fields named ``<language>-<text key>``, initially the stored translation. A text frozen
    with the questions (``frozen``) has no field: the page shows it read-only."""

    def __init__(self, *, table, frozen, data=None):
        super().__init__(data=data)
        self.table = table
        for text in table.texts:
            if frozen and text.frozen_with_questions:
                continue
            for status in table.languages:
                widget = (
                    forms.TextInput()
                    if text.field in ONE_LINE
                    else forms.Textarea(
                        attrs={"rows": 4 if text.kind in ("intro", "consent") else 2}
                    )
                )
                widget.attrs.update({"lang": status.code, "aria-describedby": f"src-{text.key}"})
                self.fields[self.name_of(status.code, text.key)] = forms.CharField(
                    required=False,
                    max_length=TEXT_MAX_LENGTHS[text.field],
                    initial=text.translated(status.code),
                    widget=widget,
                    label=_("%(language)s: %(text)s")
                    % {
                        "language": get_language_info(status.code)["name_local"],
                        "text": text_name(text),
                    },
                )

    @staticmethod
    def name_of(language, key) -> str:
        return f"{language}-{key}"

    def rows(self):
        """Per text: the source, and per language its bound field (or None if read-only) and
        its stored translation, for the template."""
        for text in self.table.texts:
            cells = []
            for status in self.table.languages:
                name = self.name_of(status.code, text.key)
                cells.append(
                    {
                        "code": status.code,
                        "field": self[name] if name in self.fields else None,
                        "value": text.translated(status.code),
                    }
                )
            yield {"text": text, "name": text_name(text), "cells": cells}


def text_name(text) -> str:
    """How the page names a text: "Title", "Introduction", or its number ("Q1", "G2 · 3")."""
    if text.kind == "title":
        return _("Title")
    if text.kind == "intro":
        return _("Introduction")
    if text.kind == "consent":
        return _("Consent")
    return text.number
