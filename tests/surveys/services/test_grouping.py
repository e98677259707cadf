"""Grouping questions: the services that write them, and submissions that carry their answers."""

import uuid

import pytest
from django.core.exceptions import ValidationError

from surveys import services
from surveys.models import (
    GroupAnswer,
    GroupingOption,
    GroupingQuestion,
    GroupingTally,
    GroupTally,
    Submission,
)
from surveys.selectors import languages
from surveys.services import grouping, translations
from tests.helpers import DEPARTMENTS, translation_texts

pytestmark = pytest.mark.django_db


def tallies(survey):
    """{(question position, option label): (n, yes)} from the stored tally rows."""
    positions = dict(survey.questions.values_list("id", "position"))
    labels = dict(GroupingOption.objects.values_list("id", "label"))
    return {
        (positions[qid], labels[oid]): (n, yes)
        for qid, oid, n, yes in GroupTally.objects.filter(
            option__grouping_question__survey=survey
        ).totals()
    }


# --- writing grouping questions -----------------------------------------------------------


def test_a_grouping_question_keeps_its_options_in_the_given_order(make_survey):
    survey = make_survey(status="draft")
    gq = grouping.grouping_question_add(
        survey=survey, text="  Age band? ", options=["18–29", "", "30–49 ", "50+"]
    )
    assert gq.text == "Age band?"
    assert [o.label for o in gq.options.all()] == ["18–29", "30–49", "50+"]
    assert [o.position for o in gq.options.all()] == [0, 1, 2]


@pytest.mark.parametrize(
    "options",
    [
        ["Only one"],
        [f"Option {i}" for i in range(13)],
        ["Same", "same"],
        ["x" * 201, "y"],
        "A\nB",
        [1, 2],
    ],
    ids=["one", "thirteen", "duplicate", "too-long", "not-a-list", "not-text"],
)
def test_bad_options_are_refused_naming_the_field_and_nothing_is_stored(make_survey, options):
    survey = make_survey(status="draft")
    with pytest.raises(ValidationError) as error:
        grouping.grouping_question_add(survey=survey, text="Team?", options=options)
    assert set(error.value.message_dict) == {"options"}
    assert not survey.grouping_questions.exists()


def test_twelve_options_are_allowed(make_survey):
    survey = make_survey(status="draft")
    gq = grouping.grouping_question_add(
        survey=survey, text="Team?", options=[f"Team {i}" for i in range(12)]
    )
    assert gq.options.count() == 12


def test_a_blank_grouping_question_is_refused(make_survey):
    with pytest.raises(ValidationError) as error:
        grouping.grouping_question_add(
            survey=make_survey(status="draft"), text="  ", options=["A", "B"]
        )
    assert set(error.value.message_dict) == {"text"}


def test_update_replaces_text_and_options(grouped_draft):
    gq = grouped_draft.grouping_questions.get()
    grouping.grouping_question_update(grouping_question=gq, text="Team?", options=["Red", "Blue"])
    gq.refresh_from_db()
    assert gq.text == "Team?"
    assert [o.label for o in gq.options.all()] == ["Red", "Blue"]


def test_grouping_questions_are_frozen_once_responses_exist(
    grouped_survey, options, submit_grouped
):
    assert submit_grouped(grouped_survey, [True, False], [options[0]]).status_code == 201
    grouped_survey.refresh_from_db()
    gq = grouped_survey.grouping_questions.get()
    with pytest.raises(services.SurveyFrozen):
        grouping.grouping_question_add(survey=grouped_survey, text="Age?", options=["A", "B"])
    with pytest.raises(services.SurveyFrozen):
        grouping.grouping_question_update(grouping_question=gq, text="X?", options=["A", "B"])
    with pytest.raises(services.SurveyFrozen):
        grouping.grouping_question_delete(grouping_question=gq)
    assert [o.label for o in gq.options.all()] == list(DEPARTMENTS)


# --- submissions with grouping answers ----------------------------------------------------


def test_each_submission_updates_the_tallies_of_its_group(grouped_survey, options, submit_grouped):
    sales, research, _support = options
    for bits, option in [
        ([True, False], sales),
        ([True, True], sales),
        ([False, True], research),
    ]:
        assert submit_grouped(grouped_survey, bits, [option]).status_code == 201
    assert tallies(grouped_survey) == {
        (0, "Sales"): (2, 2),
        (1, "Sales"): (2, 1),
        (0, "Research"): (1, 0),
        (1, "Research"): (1, 1),
        (0, "Support"): (0, 0),
        (1, "Support"): (0, 0),
    }
    labels = dict(GroupingOption.objects.values_list("id", "label"))
    counts = {labels[oid]: n for _gid, oid, n in GroupingTally.objects.totals() if oid is not None}
    assert counts == {"Sales": 2, "Research": 1, "Support": 0}


def test_the_running_tallies_equal_a_recount_from_the_stored_rows(
    grouped_survey, options, submit_grouped
):
    for index in range(12):
        bits = [index % 2 == 0, index % 3 == 0]
        submit_grouped(grouped_survey, bits, [options[index % 3]])
    running = tallies(grouped_survey)
    services.group_tallies_rebuild(survey=grouped_survey)
    assert tallies(grouped_survey) == running
    assert sum(n for (position, _label), (n, _yes) in running.items() if position == 0) == 12


def test_a_replayed_submission_is_counted_once(grouped_survey, options, submit_grouped):
    submission_id = uuid.uuid4()
    for _attempt in range(3):
        response = submit_grouped(
            grouped_survey, [True, True], [options[1]], submission_id=submission_id
        )
        assert response.status_code == 201
    assert tallies(grouped_survey)[(0, "Research")] == (1, 1)
    assert GroupAnswer.objects.count() == 1


@pytest.mark.parametrize(
    ("groups", "fragment"),
    [
        (None, "required"),
        ({}, "required"),
        ("Sales", "Must be an object"),
        ({"999999": "1"}, "not a grouping question id"),
        ({"abc": "1"}, "not a grouping question id"),
    ],
)
def test_a_submission_without_a_valid_group_stores_nothing(grouped_survey, groups, fragment):
    question_ids = list(grouped_survey.questions.values_list("id", flat=True))
    # Optional by default; a required one must be answered (an option, or prefer not to say).
    gq = grouped_survey.grouping_questions.get()
    GroupingQuestion.objects.filter(pk=gq.pk).update(required=True)
    field = f"groups.{gq.pk}" if fragment == "required" else "groups"
    with pytest.raises(ValidationError) as error:
        services.submission_receive(
            slug=grouped_survey.slug,
            submission_id=uuid.uuid4(),
            answers=dict.fromkeys(question_ids, True),
            groups=groups,
        )
    assert set(error.value.message_dict) == {field}
    assert fragment in error.value.message_dict[field][0]
    assert not Submission.objects.exists()
    assert not any(n for _qid, _oid, n, _yes in GroupTally.objects.totals())


def test_an_option_of_another_grouping_question_is_refused(grouped_survey, options, make_survey):
    other = make_survey(status="draft")
    foreign = grouping.grouping_question_add(survey=other, text="Age?", options=["Young", "Old"])
    gq = grouped_survey.grouping_questions.get()
    question_ids = list(grouped_survey.questions.values_list("id", flat=True))
    # "²" passes str.isdigit() but is no number int() reads.
    for option in (foreign.options.first().pk, "1.5", True, -1, "²", "١"):
        with pytest.raises(ValidationError) as error:
            services.submission_receive(
                slug=grouped_survey.slug,
                submission_id=uuid.uuid4(),
                answers=dict.fromkeys(question_ids, False),
                groups={str(gq.pk): option},
            )
        assert "must be one of its option ids" in error.value.message_dict["groups"][0]
    assert not Submission.objects.exists()


def test_option_ids_may_be_numbers_or_digit_strings(grouped_survey, options):
    gq = grouped_survey.grouping_questions.get()
    question_ids = list(grouped_survey.questions.values_list("id", flat=True))
    for option in (options[0], str(options[1])):
        outcome = services.submission_receive(
            slug=grouped_survey.slug,
            submission_id=uuid.uuid4(),
            answers=dict.fromkeys(question_ids, False),
            groups={gq.pk: option},
        )
        assert outcome.created


def test_a_survey_without_grouping_questions_refuses_groups_but_takes_an_empty_object(
    open_survey,
):
    question_ids = list(open_survey.questions.values_list("id", flat=True))
    answers = dict.fromkeys(question_ids, True)
    with pytest.raises(ValidationError) as error:
        services.submission_receive(
            slug=open_survey.slug, submission_id=uuid.uuid4(), answers=answers, groups={"1": "1"}
        )
    assert error.value.message_dict == {"groups": ["This survey has no grouping questions."]}
    assert services.submission_receive(
        slug=open_survey.slug, submission_id=uuid.uuid4(), answers=answers, groups={}
    ).created


def test_tallies_missing_after_a_bulk_import_are_recounted(grouped_survey, options, simulate):
    # Bulk-imported rows come with a recount; a later live submission keeps the tallies exact.
    simulate(grouped_survey, [[True, False], [False, False]], [[options[0]], [options[2]]])
    GroupTally.objects.filter(option__grouping_question__survey=grouped_survey).delete()
    question_ids = list(grouped_survey.questions.values_list("id", flat=True))
    gq = grouped_survey.grouping_questions.get()
    services.submission_receive(
        slug=grouped_survey.slug,
        submission_id=uuid.uuid4(),
        answers=dict(zip(question_ids, [True, True], strict=True)),
        groups={gq.pk: options[0]},
    )
    assert tallies(grouped_survey)[(0, "Sales")] == (2, 2)
    assert tallies(grouped_survey)[(1, "Support")] == (1, 0)


# --- "Prefer not to say" is built in (issue 24) ------------------------------------------


@pytest.mark.parametrize(
    "typed",
    [
        "Prefer not to say",
        "prefer not to say.",
        "PREFER-NOT-TO-SAY",
        "prefer_not_to_say",
        "응답하지 않겠습니다",
        "不愿透露",
    ],
)
def test_a_typed_prefer_not_to_say_in_any_language_is_refused_pointing_to_the_built_in(
    make_survey, typed
):
    survey = make_survey(status="draft")
    with pytest.raises(ValidationError) as error:
        grouping.grouping_question_add(survey=survey, text="Team?", options=["Sales", typed])
    [message] = error.value.message_dict["options"]
    assert typed in message and "built-in “Prefer not to say”" in message
    assert not survey.grouping_questions.exists()
    gq = grouping.grouping_question_add(survey=survey, text="Team?", options=["Sales", "Office"])
    with pytest.raises(ValidationError):
        grouping.grouping_question_update(grouping_question=gq, text="Team?", options=[typed, "A"])
    assert [o.label for o in gq.options.all()] == ["Sales", "Office"]


def test_options_that_merely_mention_it_are_kept(make_survey):
    survey = make_survey(status="draft")
    gq = grouping.grouping_question_add(
        survey=survey, text="Why?", options=["I prefer not to say why", "Other"]
    )
    assert gq.options.count() == 2


@pytest.mark.parametrize("typed", ["응답하지 않겠습니다", "Prefer not to say", "不愿透露"])
def test_an_option_translated_into_prefer_not_to_say_is_refused(grouped_draft, typed):
    option = grouped_draft.grouping_questions.get().options.first()
    with pytest.raises(ValidationError) as error:
        translations.survey_translations_save(
            survey=grouped_draft, texts={f"ko-o{option.pk}": typed}
        )
    assert list(error.value.message_dict) == [f"ko-o{option.pk}"]
    option.refresh_from_db()
    assert option.translations == {}


# --- editing keeps the translations of unchanged options (issue 24) ----------------------


@pytest.fixture
def translated_grouping(grouped_draft):
    """``grouped_draft`` with every text in Korean and Chinese: offered in both."""
    translations.survey_translations_save(
        survey=grouped_draft, texts=translation_texts(grouped_draft)
    )
    grouped_draft.refresh_from_db()
    assert languages.survey_languages(survey=grouped_draft) == ["en", "ko", "zh-hans"]
    return grouped_draft


def option_translations(gq):
    return {o.label: o.translations for o in gq.options.all()}


def test_removing_an_option_keeps_every_other_translation_and_every_language(
    translated_grouping,
):
    gq = translated_grouping.grouping_questions.get()
    before = option_translations(gq)
    saved = grouping.grouping_question_update(
        grouping_question=gq, text=gq.text, options=["Support", "sales"]
    )
    assert saved.languages_dropped == []
    # Matched by text (case aside), in the new order; the removed option's are gone.
    assert option_translations(gq) == {"Support": before["Support"], "sales": before["Sales"]}
    assert before["Sales"] == {
        "ko": {"label": "Sales [ko]"},
        "zh-hans": {"label": "Sales [zh-hans]"},
    }
    assert languages.survey_languages(survey=translated_grouping) == ["en", "ko", "zh-hans"]


def test_a_new_option_names_the_languages_it_stops_offering(translated_grouping):
    gq = translated_grouping.grouping_questions.get()
    saved = grouping.grouping_question_update(
        grouping_question=gq, text=gq.text, options=[*DEPARTMENTS, "Legal"]
    )
    assert saved.languages_dropped == ["ko", "zh-hans"]
    assert saved.grouping_question == gq
    assert option_translations(gq)["Legal"] == {}
    assert option_translations(gq)["Research"]["ko"] == {"label": "Research [ko]"}
