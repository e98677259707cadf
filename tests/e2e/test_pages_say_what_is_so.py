"""What the pages say, in Chromium, on a survey of every question kind (issue 36): counts
named by kind and computed from what they count, question counts of the questions written
(the practice named apart), checkboxes on their label's line, confirmation before what cannot
be undone, and a consent note that changes once the answers are sent."""

import os
import re

import pytest
from playwright.sync_api import expect

from surveys import selectors, services
from surveys.models import Invitation, Submission, Survey
from surveys.selectors.breakdown_codes import code_kind
from surveys.services import grouping, invitations
from tests.e2e.accessibility import axe_violations
from tests.helpers import EVERY_KIND_QUESTIONS, EVERY_KIND_SETTINGS, submit_answers

pytestmark = pytest.mark.e2e

SHOTS = "/tmp/shots"
WIDTHS = (390, 768, 1280)
CHECKBOXES = (
    "id_asked_directly",
    "id_direct_confirmed",
    "id_cheating_confirmed",
    "id_compare_direct",
)


@pytest.fixture
def every_kind(owner):
    """A draft of every question kind, a consent text, a practice round per design and a
    grouping question."""
    survey = services.survey_create(
        owner=owner,
        title="Workplace study",
        questions=list(EVERY_KIND_QUESTIONS),
        consent_text="I agree to take part in this study.",
        min_n=5,
        **EVERY_KIND_SETTINGS,
    )
    grouping.grouping_question_add(
        survey=survey, text="Which department?", options=("Sales", "Support"), required=True
    )
    return survey


def answer_everything(page):
    """Tick the consent, then answer each question the page shows (the text one is optional
    and left blank) and the grouping question."""
    page.get_by_label("I have read this and agree to take part").check()
    for fieldset in page.locator("#respond-questions fieldset.question:visible").all():
        if fieldset.locator("input[type=number]").count():
            fieldset.locator("input[type=number]").fill("3")
        elif fieldset.locator("input[type=radio]").count():
            fieldset.locator("input[type=radio]").first.check()


def test_the_breakdown_names_what_it_leaves_out_by_kind_with_links(
    live_server, page, sign_in, owner, every_kind
):
    survey = services.survey_open(survey=every_kind)
    sign_in(page, live_server, owner)
    page.goto(f"{live_server.url}/surveys/{survey.pk}/breakdown/")
    notice = page.locator("#yes-no-only")
    expect(notice).to_contain_text("Not broken down by group:")
    items = notice.locator("li[data-left-out]")
    kinds = {item.get_attribute("data-left-out"): item for item in items.all()}
    # Counted from the questions: one of each kind the breakdown does not take (it takes the
    # one-bit yes/no questions and, issue 33, the compared and cheating-detection ones).
    questions = list(survey.questions.all())
    taken = {q.pk for q in questions if selectors.reports_a_bit(q) or code_kind(q)}
    assert "compared" not in kinds and "cheating" not in kinds
    assert sum(int(item.get_attribute("data-count")) for item in kinds.values()) == len(
        questions
    ) - len(taken)
    expect(kinds["numeric"]).to_contain_text("1 numeric question: randomized with noise")
    expect(kinds["text"]).to_contain_text("1 text question")
    assert "4 multiple-choice or numeric" not in notice.inner_text()
    os.makedirs(SHOTS, exist_ok=True)
    notice.screenshot(path=f"{SHOTS}/breakdown-left-out.png")
    # Every link leads to the question's own section on the results page.
    hrefs = [link.get_attribute("href") for link in notice.locator("a").all()]
    assert len(hrefs) == len(questions) - len(taken)
    page.goto(f"{live_server.url}{hrefs[0].split('#')[0]}")
    for href in hrefs:
        anchor = href.split("#")[1]
        assert page.locator(f"#{anchor}").count() == 1, anchor


def test_question_counts_count_the_questions_written_and_name_the_practice(
    live_server, page, sign_in, owner, every_kind
):
    written = len(EVERY_KIND_QUESTIONS)
    practice = len(selectors.comprehension_questions(survey=every_kind))
    assert practice >= 2
    sign_in(page, live_server, owner)
    page.goto(f"{live_server.url}/surveys/")
    expect(page.locator("[data-stat=question-total]")).to_have_text(
        re.compile(rf"^{written}\+ {practice} practice rounds$")
    )
    page.goto(f"{live_server.url}/surveys/{every_kind.pk}/")
    expect(page.locator("#questions-title .count")).to_have_text(f"({written})")
    services.survey_open(survey=every_kind)
    page.goto(f"{live_server.url}/s/{every_kind.slug}/")
    page.get_by_label("I have read this and agree to take part").check()
    numbers = page.locator(
        "#respond-questions fieldset.question .question-number"
    ).all_inner_texts()
    numbers = [number for number in numbers if not number.startswith("About you")]
    assert [re.match(r"Question \d+ of \d+", number).group(0) for number in numbers] == [
        f"Question {k} of {written}" for k in range(1, written + 1)
    ]
    # The practice rounds are named as practice, not as questions.
    rounds = page.locator("#respond-practice legend .question-number").all_inner_texts()
    assert rounds == [f"Practice {k}" for k in range(1, practice + 1)]


@pytest.mark.parametrize("width", WIDTHS)
def test_the_builders_checkboxes_sit_on_their_labels_line(
    live_server, new_context, sign_in, owner, every_kind, width
):
    page = new_context(viewport={"width": width, "height": 900}).new_page()
    sign_in(page, live_server, owner)
    page.goto(f"{live_server.url}/surveys/{every_kind.pk}/")
    page.locator("#id_design").select_option("cdm")  # shows cheating detection's "I understand"
    for box_id in CHECKBOXES:
        box = page.locator(f"#{box_id}")
        label = page.locator(f"label[for={box_id}]")
        expect(box).to_be_visible()
        box_at, label_at = box.bounding_box(), label.bounding_box()
        line = page.evaluate(
            "(id) => parseFloat(getComputedStyle(document.querySelector(`label[for=${id}]`))"
            ".lineHeight)",
            box_id,
        )
        middle = box_at["y"] + box_at["height"] / 2
        # Beside the label, not above or below it, and level with its first line.
        assert box_at["x"] + box_at["width"] <= label_at["x"] + 1, (box_id, box_at, label_at)
        assert label_at["y"] <= middle <= label_at["y"] + line, (box_id, box_at, label_at, line)
    if width in (390, 1280):
        os.makedirs(SHOTS, exist_ok=True)
        # The add-question box with every checkbox shown (docs/screenshots/builder-*.png).
        page.locator("form.question-add").first.screenshot(path=f"{SHOTS}/builder-{width}.png")


def test_opening_for_the_real_study_asks_first_and_the_consent_note_follows_the_send(
    live_server, new_context, sign_in, owner, every_kind
):
    survey = services.survey_pilot_start(survey=every_kind)
    respondent = new_context().new_page()
    respondent.goto(f"{live_server.url}/s/{survey.slug}/")
    answer_everything(respondent)
    status = respondent.locator("#respond-consent-status")
    expect(status).to_have_text("Thank you. The questions are shown below.")
    submit_answers(respondent)
    # Sent: the questions are gone, and the consent card says what happened.
    expect(status).to_have_text("You agreed to take part, and your answers have been sent.")
    os.makedirs(SHOTS, exist_ok=True)
    respondent.locator("#respond-consent").screenshot(path=f"{SHOTS}/consent-sent.png")
    expect(respondent.locator("#respond-consent-accept")).to_be_disabled()
    assert "shown below" not in respondent.locator("#respond-consent").inner_text()

    # Without a script too: the confirmation is a page of its own.
    page = new_context(java_script_enabled=False).new_page()
    sign_in(page, live_server, owner)
    page.goto(f"{live_server.url}/surveys/{survey.pk}/")
    page.get_by_role("button", name="Open for the real study…").click()
    confirm = page.locator("[data-confirm]")
    expect(confirm).to_contain_text("Open for the real study?")
    expect(confirm.locator("[data-loss=pilot-responses]")).to_have_text(
        "The 1 pilot response is deleted, with everything counted from it. It cannot be undone."
    )
    expect(confirm.locator("[data-loss=design]")).to_contain_text("locked for good")
    page.screenshot(path=f"{SHOTS}/open-confirm.png", full_page=True)
    page.get_by_role("link", name="Cancel").click()
    survey.refresh_from_db()
    assert survey.status == Survey.Status.PILOT
    assert Submission.objects.filter(survey=survey).count() == 1
    page.get_by_role("button", name="Open for the real study…").click()
    page.get_by_role("button", name="Open for the real study", exact=True).click()
    expect(page.locator(".survey-head .badge")).to_contain_text("Open")
    assert Submission.objects.filter(survey=survey).count() == 0


def test_discarding_deleting_and_revoking_ask_first_saying_what_is_lost(
    live_server, new_context, sign_in, owner, every_kind
):
    Survey.objects.filter(pk=every_kind.pk).update(access=Survey.Access.BOTH)
    every_kind.refresh_from_db()
    made = invitations.invitations_create(survey=every_kind, emails=["ana@example.org"])
    survey = services.survey_pilot_start(survey=every_kind)
    page = new_context(java_script_enabled=False).new_page()
    sign_in(page, live_server, owner)
    page.goto(f"{live_server.url}/surveys/{survey.pk}/")
    page.get_by_role("link", name="Discard pilot responses…").click()
    expect(page.locator("#discard-title")).to_have_text("Discard pilot responses?")
    expect(page.locator("main")).to_contain_text("It cannot be undone.")
    page.get_by_role("link", name="Cancel").click()
    page.get_by_role("link", name="Delete survey…").click()
    expect(page.locator("#delete-title")).to_have_text("Delete this survey?")
    page.get_by_role("link", name="Keep the survey").click()
    survey.refresh_from_db()
    assert survey.deleted_at is None and survey.status == Survey.Status.PILOT

    page.goto(f"{live_server.url}/surveys/{survey.pk}/invitees/")
    page.get_by_role("link", name="Revoke…").click()
    confirm = page.locator("[data-confirm]")
    expect(confirm).to_contain_text("Revoke this invitation?")
    expect(confirm).to_contain_text("ana@example.org")
    expect(confirm.locator("[data-loss=code]")).to_contain_text("stop working for good")
    assert Invitation.objects.get(pk=made[0].id).status == Invitation.Status.UNUSED
    page.get_by_role("button", name="Revoke the invitation").click()
    expect(page.locator(".invitation-status")).to_have_text("Revoked")
    assert Invitation.objects.get(pk=made[0].id).status == Invitation.Status.REVOKED


BOTH_FORMS = ("(를)", "(을)", "(가)", "(이)", "(은)", "(는)")


@pytest.mark.parametrize("language", ["ko", "zh-hans"])
def test_the_practice_and_its_feedback_read_whole_in_korean_and_chinese(
    live_server, page, make_translated_survey, language
):
    """Every round practised both ways, then the answers sent: no sentence the respondent
    reads hangs a particle on a quoted answer ("“예”을(를)")."""
    survey = make_translated_survey(
        questions=list(EVERY_KIND_QUESTIONS),
        consent_text="I agree to take part in this study.",
        **EVERY_KIND_SETTINGS,
    )
    rounds = [q.pk for q in selectors.comprehension_questions(survey=survey)]
    page.goto(f"{live_server.url}/s/{survey.slug}/?lang={language}")
    page.locator("#respond-consent-accept").check()
    said = []
    for round_id in rounds:
        for choice in ("yes", "no"):
            page.locator(f"#practice-{round_id}-{choice}").check()
            feedback = page.locator(f"#practice-{round_id}-feedback")
            expect(feedback).not_to_be_empty()
            said.append(feedback.inner_text())
        said.append(page.locator(f"#practice-{round_id} .practice-scenario").inner_text())
    assert len(said) == 3 * len(rounds)
    said.append(page.locator("body").inner_text())
    for fieldset in page.locator("#respond-questions fieldset.question:visible").all():
        if fieldset.locator("input[type=number]").count():
            fieldset.locator("input[type=number]").fill("3")
        elif fieldset.locator("input[type=radio]").count():
            fieldset.locator("input[type=radio]").first.check()
    with page.expect_response(lambda r: "/responses/" in r.url and r.request.method == "POST"):
        page.locator("#respond-submit").click()
    page.locator("#respond-done").wait_for(state="visible")
    said.append(page.locator("body").inner_text())
    found = [(text, form) for text in said for form in BOTH_FORMS if form in text]
    assert found == []


@pytest.mark.parametrize("width", [390, 1280])
def test_the_confirmation_pages_pass_axe_and_fit_the_width(
    live_server, new_context, sign_in, owner, every_kind, width
):
    Survey.objects.filter(pk=every_kind.pk).update(access=Survey.Access.INVITATION)
    made = invitations.invitations_create(survey=every_kind, count=1)
    page = new_context(viewport={"width": width, "height": 800}, bypass_csp=True).new_page()
    sign_in(page, live_server, owner)
    for path in ("open/", f"invitees/{made[0].id}/revoke/", "invitees/", ""):
        page.goto(f"{live_server.url}/surveys/{every_kind.pk}/{path}")
        violations = axe_violations(page)
        assert violations == [], (path, violations)
        assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
    # min_n 5 above the 1 invited: the builder, the invitations page and the confirmation to
    # open all say so.
    for path in ("open/", "invitees/", ""):
        page.goto(f"{live_server.url}/surveys/{every_kind.pk}/{path}")
        expect(page.locator("[data-warning=min_n_above_invited]")).to_contain_text("you invited 1")
