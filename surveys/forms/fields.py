"""The pieces several page forms share: the page form without colons, the coin inputs
and how they are checked, the presets' and confidence levels' choices, a question's text and
"Required" boxes."""

import math

from django import forms
from django.utils.translation import gettext_lazy as _

from .. import limits
from ..designs import design_row
from ..selectors import CUSTOM_DESIGN, design_presets

PRESET_LABELS = {
    "classic": _("Classic two coins — half answer truthfully, ε = ln 3 ≈ 1.10"),
    "strong_privacy": _("Stronger privacy — a quarter answer truthfully, ε = ln(5/3) ≈ 0.51"),
    "high_precision": _("Weaker privacy, more precise — three quarters truthful, ε = ln 7 ≈ 1.95"),
}
# The survey's coins are forced response's parameters, labelled in its row of the design table.
COIN_LABELS = {
    name: parameter.label for name, parameter in design_row("forced_response").parameters.items()
}


def preset_choices():
    presets = design_presets()
    choices = [(key, PRESET_LABELS.get(key, preset.label)) for key, preset in presets.items()]
    return [*choices, (CUSTOM_DESIGN, _("Custom coins"))]


def confidence_choices(extra=None):
    levels = sorted({*limits.CONFIDENCE_LEVELS, *([extra] if extra else [])})
    return [(level, f"{level * 100:g} %") for level in levels]


def clean_coin(value):
    if value is None:
        raise forms.ValidationError(_("Required when “Custom coins” is selected."))
    if not math.isfinite(value) or not 0 < value < 1:
        raise forms.ValidationError(
            _("Must lie strictly between 0 and 1, got %(value)s."), params={"value": f"{value:g}"}
        )
    if not limits.COIN_MIN <= value <= limits.COIN_MAX:
        raise forms.ValidationError(
            _("Must be between %(min)s and %(max)s, got %(value)s."),
            params={"min": limits.COIN_MIN, "max": limits.COIN_MAX, "value": f"{value:g}"},
        )
    return value


def resolve_coins(form, cleaned):
    """Turn the design choice into coins: a preset's own, or the custom coins validated.

    A preset wins over whatever the coin inputs hold (they may be stale without JS). Returns
    True when a preset supplied the coins.
    """
    preset = cleaned.get("preset")
    presets = design_presets()
    if preset in presets:
        design = presets[preset].design
        cleaned["p_truth"] = float(design.p_truth)
        cleaned["p_forced_yes"] = float(design.p_forced_yes)
        return True
    if preset == CUSTOM_DESIGN:
        for name in ("p_truth", "p_forced_yes"):
            if name in form.errors:
                continue
            try:
                cleaned[name] = clean_coin(cleaned.get(name))
            except forms.ValidationError as exc:
                form.add_error(name, exc)
    return False


class PageForm(forms.Form):
    """Labels without the trailing colon, as on the rest of the pages."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)


class CoinField(forms.FloatField):
    widget = forms.NumberInput

    def __init__(self, **kwargs):
        super().__init__(required=False, **kwargs)
        self.widget.attrs.update({"step": "any", "inputmode": "decimal"})


def required_answer_field(*, initial, help_text):
    """The builder's "Required" box of a yes/no or grouping question; ``initial`` is its
    default, ``help_text`` says what skipping that kind of question means."""
    return forms.BooleanField(
        label=_("Required: respondents must answer it"),
        required=False,
        initial=initial,
        help_text=help_text,
    )


def question_text_field(*, label, help_text, max_length=limits.QUESTION_TEXT_MAX_LENGTH):
    """The builder's text box of a question (yes/no or grouping): two rows to start with."""
    return forms.CharField(
        label=label,
        max_length=max_length,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text=help_text,
    )
