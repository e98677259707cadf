"""Duplicating a survey in a real Chromium, as a researcher does it to change a frozen
design (issue 14, item 1): the copy is a draft with the same questions, grouping questions
and coins, under a link of its own; the original keeps its link and its responses."""

import pytest
from django.utils.translation import trans_real
from playwright.sync_api import expect

from surveys import services
from surveys.models import Survey
from surveys.services import grouping

pytestmark = pytest.mark.e2e

LOCALES = {"en-US": "en", "ko-KR": "ko", "zh-CN": "zh-hans"}


@pytest.mark.parametrize("locale", LOCALES)
def test_a_duplicate_gets_its_own_link_and_the_original_keeps_its_own(
    live_server, new_context, sign_in, owner, make_survey, submit, locale
):
    # The catalog itself, not translation.override: an activated language would outlive the
    # test under Playwright's greenlets.
    t = trans_real.translation(LOCALES[locale]).gettext
    original = make_survey(status="draft", p_truth=0.25, p_forced_yes=0.5)
    grouping.grouping_question_add(survey=original, text="Team?", options=["Red", "Blue"])
    original = services.survey_open(survey=original)
    assert submit(original, [True, False]).status_code == 201
    page = new_context(locale=locale).new_page()
    sign_in(page, live_server, owner)

    page.goto(f"{live_server.url}/surveys/{original.pk}/")
    with page.expect_navigation():
        page.get_by_role("button", name=t("Duplicate survey"), exact=True).click()
    copy = Survey.objects.exclude(pk=original.pk).get(owner=owner)
    assert page.url.rstrip("/").endswith(f"/surveys/{copy.pk}")
    # A draft with the same questions, grouping questions and coins, and a new link.
    assert copy.status == Survey.Status.DRAFT and copy.slug != original.slug
    assert list(copy.questions.values_list("text", flat=True)) == list(
        original.questions.values_list("text", flat=True)
    )
    assert [gq.text for gq in copy.grouping_questions.all()] == ["Team?"]
    assert (copy.p_truth, copy.p_forced_yes) == (0.25, 0.5)
    assert copy.response_count == 0
    # The copy's questions can change (it is not frozen): its builder offers the add box.
    expect(page.locator("form.question-add[data-async=add]")).to_be_visible()

    page.goto(f"{live_server.url}/surveys/{copy.pk}/share/")
    copy_link = page.locator("#share-url").input_value()
    page.goto(f"{live_server.url}/surveys/{original.pk}/share/")
    original_link = page.locator("#share-url").input_value()
    assert copy_link.endswith(f"/s/{copy.slug}/") and original_link.endswith(f"/s/{original.slug}/")
    # The original still takes responses at its own link, with its response kept.
    original.refresh_from_db()
    assert original.status == Survey.Status.OPEN and original.response_count == 1
