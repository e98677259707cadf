"""The builder's question forms: edit one question, add one or paste several, move one."""

from django import forms
from django.utils.translation import gettext_lazy as _

from .. import limits
from .fields import PageForm, question_text_field, required_answer_field
from .question_types import QuestionTypeForm


class QuestionForm(QuestionTypeForm):
    text = question_text_field(
        label=_("Question"),
        help_text=_("Ask about one thing, so that each answer has a single meaning."),
    )
    required = required_answer_field(
        initial=True,
        help_text=_(
            "Untick to let respondents skip it. A skipped question sends nothing, and its "
            "estimate counts only the people who answered it."
        ),
    )
    field_order = ["text", "required"]

    @classmethod
    def initial_for(cls, question):
        return {
            "text": question.text,
            "required": question.required,
            **cls.type_initial(question),
        }


QUESTIONS_PER_PASTE = limits.MAX_QUESTIONS  # no survey holds more


class QuestionAddForm(QuestionTypeForm):
    """The builder's add box: one question, or several pasted one per line (all of the type
    chosen below)."""

    text = question_text_field(
        label=_("Question"),
        # Room for a survey's worth of questions; each line is checked on its own below.
        max_length=QUESTIONS_PER_PASTE * (limits.QUESTION_TEXT_MAX_LENGTH + 2),
        help_text=_(
            "Ask about one thing, so that each answer has a single meaning. To add several "
            "questions of the same type at once, put one per line."
        ),
    )
    required = QuestionForm.base_fields["required"]
    field_order = ["text", "required"]

    def next_question_form(self):
        """An empty add box for the next question, with this one's type and parameters."""
        kept = {name: value for name, value in self.cleaned_data.items() if name != "text"}
        return type(self)(initial=kept)

    def clean_text(self):
        lines = [line.strip() for line in self.cleaned_data["text"].splitlines()]
        texts = [line for line in lines if line]
        if not texts:
            raise forms.ValidationError(_("This field may not be blank."))
        if len(texts) > QUESTIONS_PER_PASTE:
            raise forms.ValidationError(
                _("At most %(max)d questions at once, got %(n)d lines.")
                % {"max": QUESTIONS_PER_PASTE, "n": len(texts)}
            )
        for number, text in enumerate(texts, start=1):
            if len(text) > limits.QUESTION_TEXT_MAX_LENGTH:
                raise forms.ValidationError(
                    _("Question %(number)d has %(n)d characters; at most %(max)d are allowed.")
                    % {"number": number, "n": len(text), "max": limits.QUESTION_TEXT_MAX_LENGTH}
                )
        return texts


class MoveForm(PageForm):
    direction = forms.ChoiceField(choices=[("up", _("Up")), ("down", _("Down"))])

    @property
    def offset(self):
        return -1 if self.cleaned_data["direction"] == "up" else 1
