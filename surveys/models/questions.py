"""A survey's questions, and the grouping questions asked beside them."""

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from .. import limits
from .surveys import Survey


class AskedQuestionManager(models.Manager):
    """The questions the researcher wrote: what every page, export and estimate lists.

    The hidden comprehension questions (``Question.Role.COMPREHENSION``) are read through
    ``Question.all_objects`` by the few readers that need them: the submission's checks and
    tallies, the page's definition, the fingerprint and their own results
    (surveys/selectors/comprehension.py).
    """

    def get_queryset(self):
        return super().get_queryset().filter(role=Question.Role.QUESTION)


class Question(models.Model):
    """One question: yes/no (under a yes/no design), multiple choice, numeric, or (asked
    directly only) short text. ``randomized`` False: asked directly, the answer sent and
    stored as given, covered by no ε (docs/respondent-page.md, "Threat model").

    What the respondent's browser sends for it (always randomized, never the true answer):
    yes/no: a boolean; choice: the index of an option (k-ary randomized response with
    ``epsilon``); numeric: an integer (the answer clamped to [min_value, max_value] plus
    discrete Laplace noise of scale (max_value - min_value) / epsilon). See
    ``selectors.mechanisms`` for the dpengine object each question randomizes with.
    """

    class Role(models.TextChoices):
        QUESTION = "question", _("Question")
        # Hidden, made and removed by services.comprehension: a direct yes/no answer, "did
        # the respondent's first try at the practice round of ``design`` get it right".
        COMPREHENSION = "comprehension", _("Comprehension check")

    class Procedure(models.TextChoices):
        # The browser carries out the design: the respondent enters the true answer.
        DEVICE = "device", _("Device")
        # The respondent carries it out: the page shows the randomizer's outcome as an
        # instruction and the answer pressed is the report; the true answer is never entered.
        RESPONDENT = "respondent", _("Respondent")

    class Kind(models.TextChoices):
        YES_NO = "yes_no", _("Yes / no")
        CHOICE = "choice", _("Multiple choice")
        NUMERIC = "numeric", _("Number")
        TEXT = "text", _("Short text")

    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="questions")
    position = models.PositiveIntegerField()
    text = models.TextField(max_length=limits.QUESTION_TEXT_MAX_LENGTH)
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.YES_NO)
    # yes/no only: {} randomizes with the survey's two coins (forced response); otherwise
    # {"kind": "warner", "p": 0.75}, a dpengine.designs kind and its parameters. A
    # comprehension question (asked directly): the design whose practice round it records.
    design = models.JSONField(default=dict, blank=True)
    # choice only: the option labels in order; reports name an option by its index.
    options = models.JSONField(default=list, blank=True)
    # choice and numeric: the privacy loss of one answer (yes/no: the design's).
    epsilon = models.FloatField(null=True, blank=True)
    # numeric only: the answer's range, both ends included.
    min_value = models.IntegerField(null=True, blank=True)
    max_value = models.IntegerField(null=True, blank=True)
    # A respondent may leave an optional question blank: the browser then sends nothing for
    # it, and its estimate counts only the reports it received (docs/researchers.md, "Optional
    # questions").
    required = models.BooleanField(default=True)
    # False: asked directly (no coins, no noise); the report is the answer itself: yes/no a
    # boolean, choice an option index, numeric an integer within [min_value, max_value],
    # text a string of at most limits.DIRECT_TEXT_MAX_BYTES bytes of UTF-8.
    randomized = models.BooleanField(default=True)
    # A randomized yes/no question compared with asking directly (the survey's control_share):
    # its report is one code, 0/1 the randomized report no/yes, 2/3 the direct answer no/yes
    # (selectors.mechanisms.report_range; surveys/selectors/control_group.py reads them).
    compare_direct = models.BooleanField(default=False)
    # A randomized yes/no question: who carries out its design (docs/researchers.md,
    # "Designing a publishable study"). A comprehension question: the procedure practised.
    procedure = models.CharField(max_length=10, choices=Procedure.choices, default=Procedure.DEVICE)
    # Kept where the researcher put it when the survey shuffles its questions (e.g. a closing
    # comment last); the others are shuffled among the remaining places.
    pinned = models.BooleanField(default=False)
    # {"ko": {"text", "options": [labels]}}
    translations = models.JSONField(default=dict, blank=True, editable=False)
    role = models.CharField(
        max_length=16, choices=Role.choices, default=Role.QUESTION, editable=False
    )

    all_objects = models.Manager()  # the comprehension questions too
    objects = AskedQuestionManager()

    class Meta:
        ordering = ["position", "id"]
        default_manager_name = "objects"
        base_manager_name = "all_objects"
        constraints = [
            # A comprehension answer is sent as given and may be left out (a respondent who
            # skips the practice sends nothing for it); its design field names the design
            # whose practice it records.
            models.CheckConstraint(
                condition=Q(role="question")
                | (
                    Q(role="comprehension")
                    & Q(kind="yes_no")
                    & Q(randomized=False)
                    & Q(required=False)
                ),
                name="question_role_valid",
            ),
            models.CheckConstraint(
                condition=Q(kind__in=["yes_no", "choice", "numeric", "text"]),
                name="question_kind_valid",
            ),
            models.CheckConstraint(
                condition=~Q(kind="text") | Q(randomized=False), name="question_text_direct"
            ),
            models.CheckConstraint(
                condition=Q(epsilon__isnull=True) | Q(epsilon__gt=0),
                name="question_epsilon_positive",
            ),
            models.CheckConstraint(
                condition=~Q(kind="numeric")
                | (
                    Q(min_value__isnull=False)
                    & Q(max_value__isnull=False)
                    & Q(max_value__gt=models.F("min_value"))
                    & (Q(epsilon__isnull=False) | Q(randomized=False))
                ),
                name="question_numeric_has_range",
            ),
            models.CheckConstraint(
                condition=~Q(kind="choice") | Q(epsilon__isnull=False) | Q(randomized=False),
                name="question_choice_has_epsilon",
            ),
            models.CheckConstraint(
                condition=Q(compare_direct=False) | (Q(kind="yes_no") & Q(randomized=True)),
                name="question_compare_direct_yes_no_randomized",
            ),
            models.CheckConstraint(
                condition=Q(procedure="device")
                | (Q(procedure="respondent") & Q(kind="yes_no") & Q(compare_direct=False)),
                name="question_procedure_valid",
            ),
        ]

    def __str__(self):
        return self.text

    @property
    def is_yes_no(self):
        return self.kind == self.Kind.YES_NO

    @property
    def is_direct(self):
        return not self.randomized


class GroupingQuestion(models.Model):
    """A plain multiple-choice question (age band, department) answered as given, no coins.

    Its answers let results be broken down by group; they are NOT protected by the coins, and
    the privacy accounting (epsilon) covers the randomized yes/no questions only.
    """

    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="grouping_questions")
    position = models.PositiveIntegerField()
    text = models.TextField(max_length=limits.QUESTION_TEXT_MAX_LENGTH)
    # Optional by default: these answers are not randomized and may identify a respondent.
    # Required or not, "Prefer not to say" is always offered (a GroupAnswer without option).
    required = models.BooleanField(default=False)
    translations = models.JSONField(default=dict, blank=True, editable=False)  # {"ko": {"text"}}

    class Meta:
        ordering = ["position", "id"]

    def __str__(self):
        return self.text


class GroupingOption(models.Model):
    grouping_question = models.ForeignKey(
        GroupingQuestion, on_delete=models.CASCADE, related_name="options"
    )
    position = models.PositiveIntegerField()
    label = models.CharField(max_length=limits.OPTION_LABEL_MAX_LENGTH)
    translations = models.JSONField(default=dict, blank=True, editable=False)  # {"ko": {"label"}}

    class Meta:
        ordering = ["position", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["grouping_question", "position"], name="grouping_option_position_unique"
            ),
        ]

    def __str__(self):
        return self.label
