"""An invitation survey in a real Chromium (docs/invitations.md): the page asks what the
invitee's code can do when it opens and obtains the token only at the first act (consent, or
a first answer), a second browser with the same code is answered before any question, the
answers go with the token, a browser that sent is thanked and offered no Send; the
researcher's invitations page."""

import json
import uuid

import pytest
from playwright.sync_api import expect

from surveys.models import Invitation, SpentToken, Submission
from surveys.services import invitations
from tests.helpers import answers_for, submit_answers

pytestmark = pytest.mark.e2e

TOKENS_PATH = "/tokens/"
STATUS_PATH = "/invitation-status/"
SEND = "Randomize and send my answers"
ELSEWHERE = "This invitation was opened on another device or browser"


def stored(survey):
    """Submissions and spent tokens stored, held for their batch or not (docs/invitations.md,
    "Batches")."""
    return (
        Submission.all_objects.filter(survey=survey).count(),
        SpentToken.objects.filter(survey=survey).count(),
    )


def open_link(page, link):
    """Open a personal link and wait for the answer of the code's status check."""
    with page.expect_response(
        lambda r: STATUS_PATH in r.url and r.request.method == "POST"
    ) as reply:
        page.goto(link)
    return reply.value


def answer_all(page, survey, truth=True):
    for qid in survey.questions.values_list("id", flat=True):
        page.locator(f"#q-{qid}").get_by_label("Yes" if truth else "No", exact=True).check()


def watch(page):
    """Every request the page makes, and every error it throws."""
    requests, problems = [], []
    page.on("request", lambda request: requests.append(request))
    page.on("pageerror", lambda error: problems.append(str(error)))
    return requests, problems


def token_requests(requests):
    return [r for r in requests if TOKENS_PATH in r.url]


def no_question_shows(page):
    """Neither a question, the consent, the practice nor a Send is visible."""
    for selector in ("fieldset.question", "#respond-consent", "#respond-practice"):
        for element in page.locator(selector).all():
            expect(element).to_be_hidden()
    expect(page.get_by_role("button", name=SEND)).to_be_hidden()


@pytest.fixture
def study(make_survey):
    return make_survey(access="invitation", consent_text="Taking part is voluntary.")


def link_for(live_server, survey, code):
    return invitations.invitation_link(slug=survey.slug, code=code, base_url=live_server.url)


def test_the_token_comes_at_consent_and_a_second_browser_is_answered_before_any_question(
    live_server, new_context, study
):
    (made,) = invitations.invitations_create(survey=study, count=1)
    link = link_for(live_server, study, made.code)
    first = new_context()
    page = first.new_page()
    requests, problems = watch(page)

    checked = open_link(page, link)
    assert checked.status == 200
    assert json.loads(checked.request.post_data) == {"code": made.code}
    assert checked.json() == {"status": "unused"}
    page.get_by_text("Your invitation is valid").wait_for()
    # Opening the link used nothing: no token was asked for, the code is still unused, and a
    # reload (the fragment gone from the address) still knows the code.
    assert made.code not in page.url
    assert page.evaluate("() => location.hash") == ""
    assert all(made.code not in request.url for request in requests)
    page.reload()
    page.get_by_text("Your invitation is valid").wait_for()
    page.wait_for_load_state("networkidle")
    assert token_requests(requests) == []
    assert Invitation.objects.get(pk=made.id).status == "unused"

    # Consent is the first act: the token is obtained then.
    with page.expect_response(lambda r: TOKENS_PATH in r.url) as issued:
        page.get_by_label("I have read this and agree to take part").check()
    assert issued.value.status == 201
    token_request = json.loads(issued.value.request.post_data)
    assert set(token_request) == {"code", "blinded_message"}
    page.get_by_text("Your invitation is confirmed").wait_for()
    assert Invitation.objects.get(pk=made.id).status == "issued"
    # Reloaded, the browser that holds the token goes on where it was, asking nothing.
    before = len(requests)
    page.reload()
    page.get_by_text("Your invitation is confirmed").wait_for()
    page.get_by_label("I have read this and agree to take part").check()
    page.wait_for_load_state("networkidle")
    assert not [r for r in requests[before:] if STATUS_PATH in r.url or TOKENS_PATH in r.url]

    # A second browser with the same link: told before any question, and asks for no token.
    other = new_context().new_page()
    other_requests, other_problems = watch(other)
    assert open_link(other, link).json() == {"status": "issued"}
    other.get_by_text(ELSEWHERE).wait_for()
    other.get_by_text("if you cannot, ask the researcher for a new link").wait_for()
    no_question_shows(other)
    assert token_requests(other_requests) == []
    assert other_problems == []

    # The first browser then finishes, and its submission is stored.
    answer_all(page, study)
    body = submit_answers(page)
    assert set(body) == {
        "submission_id",
        "answers",
        "design_fingerprint",
        "token",
        "order",
        "padding",
    }
    assert set(body["token"]) == {"message", "signature"}
    # The blinded message the server saw is not the token it is shown later.
    assert token_request["blinded_message"] not in json.dumps(body)
    assert stored(study) == (1, 1)
    assert str(Submission.all_objects.get(survey=study).submission_id) == body["submission_id"]
    assert len(token_requests(requests)) == 1

    # The same link again in the first browser after sending: thanked at the top, no Send, and
    # nothing asked of the server about the code.
    page.goto("about:blank")
    before = len(requests)
    page.goto(link)
    answered = page.get_by_text("You have already answered; thank you.")
    answered.wait_for()
    no_question_shows(page)
    coins_top = page.locator("#coins-title").bounding_box()["y"]
    assert answered.bounding_box()["y"] < coins_top
    page.wait_for_load_state("networkidle")
    assert not [r for r in requests[before:] if STATUS_PATH in r.url or TOKENS_PATH in r.url]
    assert page.get_by_text("Your invitation is confirmed").count() == 0
    assert stored(study) == (1, 1)
    assert problems == []


def test_a_revoked_or_unknown_code_is_said_at_once(live_server, new_context, study):
    kept, revoked = invitations.invitations_create(survey=study, count=2)
    invitations.invitation_revoke(survey=study, invitation_id=revoked.id)
    for code, says in (
        (revoked.code, "This invitation was withdrawn by the researcher"),
        ("a" * 32, "This invitation code is not valid"),
    ):
        page = new_context().new_page()
        requests, problems = watch(page)
        assert open_link(page, link_for(live_server, study, code)).status == 200
        page.get_by_text(says).wait_for()
        no_question_shows(page)
        expect(page.get_by_label("Invitation code")).to_be_visible()
        assert token_requests(requests) == []
        assert problems == []
    assert Invitation.objects.get(pk=kept.id).status == "unused"


def test_without_an_invitation_the_page_says_so_and_a_typed_code_works(
    live_server, page, make_survey
):
    study = make_survey(access="invitation")  # no consent step: the first answer acts
    (made,) = invitations.invitations_create(survey=study, count=1)
    requests, _problems = watch(page)
    page.goto(f"{live_server.url}/s/{study.slug}/")
    page.get_by_text("This survey is by invitation only").first.wait_for()
    no_question_shows(page)
    typed = " ".join(made.code[i : i + 4] for i in range(0, 32, 4)).upper()
    page.get_by_label("Invitation code").fill(typed)
    with page.expect_response(lambda r: STATUS_PATH in r.url) as reply:
        page.get_by_role("button", name="Use this code").click()
    assert reply.value.json() == {"status": "unused"}
    page.get_by_text("Your invitation is valid").wait_for()
    assert token_requests(requests) == []
    first = study.questions.values_list("id", flat=True)[0]
    with page.expect_response(lambda r: TOKENS_PATH in r.url) as issued:
        page.locator(f"#q-{first}").get_by_label("Yes", exact=True).check()
    assert issued.value.status == 201
    answer_all(page, study)
    submit_answers(page)
    assert stored(study) == (1, 1)


def test_scripted_submissions_without_or_with_a_bad_token_store_nothing(live_server, page, study):
    url = f"{live_server.url}/api/v1/public/surveys/{study.slug}/responses/"
    answers = {str(k): v for k, v in answers_for(study, [True, True]).items()}
    body = {"submission_id": str(uuid.uuid4()), "answers": answers}
    without = page.request.post(url, data=body)
    assert without.status == 403
    assert "token" in without.json()["errors"]
    forged = page.request.post(
        url, data={**body, "token": {"message": "A" * 86, "signature": "A" * 342}}
    )
    assert forged.status == 400
    assert "token" in forged.json()["errors"]
    assert stored(study) == (0, 0)


def test_the_researchers_page_invites_counts_and_prints(live_server, page, sign_in, owner, study):
    sign_in(page, live_server, owner)
    page.goto(f"{live_server.url}/surveys/{study.pk}/invitees/")
    page.get_by_label("Email addresses").fill("ann@example.org\nnot an address\n")
    page.get_by_role("button", name="Invite these addresses").click()
    page.get_by_text("Line 2:").first.wait_for()
    assert not Invitation.objects.filter(survey=study).exists()
    page.get_by_label("Email addresses").fill("ann@example.org\nbo@example.org\nANN@example.org")
    page.get_by_role("button", name="Invite these addresses").click()
    page.get_by_text("2 invitations made.").wait_for()
    page.get_by_label("Number of anonymous codes").fill("3")
    page.get_by_role("button", name="Make anonymous codes").click()
    page.get_by_text("3 invitations made.").wait_for()
    assert page.locator("[data-count=invited]").inner_text() == "5"
    page.get_by_label("Your name as invitees see it").fill("Dr. Min Park")
    page.get_by_label("Contact address for questions about the study").fill("park@example.org")
    page.get_by_role("button", name="Save").click()
    page.get_by_text("Saved: invitation emails and slips name you this way.").wait_for()
    page.screenshot(path="/tmp/invitees-page.png", full_page=True)
    page.goto(f"{live_server.url}/surveys/{study.pk}/invitees/sheet/")
    assert page.locator(".slip").count() == 3
    assert page.locator(".slip svg").count() == 3
    page.screenshot(path="/tmp/invites-sheet.png", full_page=True)


def test_on_a_shared_device_the_token_is_kept_in_memory_only(live_server, page, make_survey):
    shared = make_survey(access="invitation", shared_devices=True)
    (made,) = invitations.invitations_create(survey=shared, count=1)
    assert open_link(page, link_for(live_server, shared, made.code)).status == 200
    page.get_by_text("Your invitation is valid").wait_for()
    with page.expect_response(lambda r: TOKENS_PATH in r.url) as issued:
        answer_all(page, shared)
    assert issued.value.status == 201
    page.get_by_text("Your invitation is confirmed").wait_for()
    assert page.evaluate("() => localStorage.length") == 0
    body = submit_answers(page)
    assert set(body["token"]) == {"message", "signature"}
    assert page.evaluate("() => localStorage.length") == 0
    assert stored(shared) == (1, 1)
