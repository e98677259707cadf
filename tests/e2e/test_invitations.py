"""An invitation survey in a real Chromium (docs/invitations.md): the invitee's link obtains
a token when opened, the answers go with it, the memo replays, a second browser is told the
invitation was used; the researcher's invitations page."""

import json
import uuid

import pytest

from surveys.models import Invitation, SpentToken, Submission
from surveys.services import invitations
from tests.helpers import answers_for, submit_answers

pytestmark = pytest.mark.e2e

TOKENS_PATH = "/tokens/"


def stored(survey):
    return (
        Submission.objects.filter(survey=survey).count(),
        SpentToken.objects.filter(survey=survey).count(),
    )


def open_link(page, link):
    """Open a personal link and wait for the token request's answer."""
    with page.expect_response(
        lambda r: TOKENS_PATH in r.url and r.request.method == "POST"
    ) as reply:
        page.goto(link)
    return reply.value


def answer_all(page, survey, truth=True):
    for qid in survey.questions.values_list("id", flat=True):
        page.locator(f"#q-{qid}").get_by_label("Yes" if truth else "No", exact=True).check()


@pytest.fixture
def study(make_survey):
    return make_survey(access="invitation")


def link_for(live_server, survey, code):
    return invitations.invitation_link(slug=survey.slug, code=code, base_url=live_server.url)


def test_an_invitee_answers_once_and_a_second_browser_is_told_it_was_used(
    live_server, new_context, study
):
    (made,) = invitations.invitations_create(survey=study, count=1)
    link = link_for(live_server, study, made.code)
    page = new_context().new_page()
    requests = []
    page.on("request", lambda request: requests.append(request))
    problems = []
    page.on("pageerror", lambda error: problems.append(str(error)))

    issued = open_link(page, link)
    assert issued.status == 201
    # The code never reached the server in an address, and left the address bar at once.
    assert all(made.code not in request.url for request in requests)
    assert made.code not in page.url
    assert page.evaluate("() => location.hash") == ""
    page.get_by_text("Your invitation is confirmed").wait_for()
    token_request = json.loads(issued.request.post_data)
    assert set(token_request) == {"code", "blinded_message"}

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

    # The same link again in the same browser (a new tab: not a jump within this page): no
    # new token request, the memo replays.
    page.goto("about:blank")
    page.goto(link)
    page.get_by_text("You have already answered this survey on this device").wait_for()
    answer_all(page, study)
    again = submit_answers(page)
    assert again["submission_id"] == body["submission_id"]
    assert again["token"] == body["token"]
    assert again["answers"] == body["answers"]
    assert stored(study) == (1, 1)
    assert len([r for r in requests if TOKENS_PATH in r.url]) == 1

    # Another browser with the same link is told the invitation was used, and sends nothing.
    other = new_context().new_page()
    refused = open_link(other, link)
    assert refused.status == 409
    other.get_by_text("This invitation has already been used").wait_for()
    answer_all(other, study)
    other.get_by_role("button", name="Randomize and send my answers").click()
    other.get_by_text("This survey is by invitation only").first.wait_for()
    assert stored(study) == (1, 1)
    assert problems == []
    assert Invitation.objects.get(pk=made.id).status == "issued"


def test_without_an_invitation_the_page_says_so_and_a_typed_code_works(live_server, page, study):
    (made,) = invitations.invitations_create(survey=study, count=1)
    page.goto(f"{live_server.url}/s/{study.slug}/")
    page.get_by_text("This survey is by invitation only").first.wait_for()
    typed = " ".join(made.code[i : i + 4] for i in range(0, 32, 4)).upper()
    page.get_by_label("Invitation code").fill(typed)
    with page.expect_response(lambda r: TOKENS_PATH in r.url) as reply:
        page.get_by_role("button", name="Use this code").click()
    assert reply.value.status == 201
    page.get_by_text("Your invitation is confirmed").wait_for()
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
    page.goto(f"{live_server.url}/surveys/{study.pk}/invitees/sheet/")
    assert page.locator(".slip").count() == 3
    assert page.locator(".slip svg").count() == 3
    page.screenshot(path="/tmp/invites-sheet.png", full_page=True)


def test_on_a_shared_device_the_token_is_kept_in_memory_only(live_server, page, make_survey):
    shared = make_survey(access="invitation", shared_devices=True)
    (made,) = invitations.invitations_create(survey=shared, count=1)
    assert open_link(page, link_for(live_server, shared, made.code)).status == 201
    page.get_by_text("Your invitation is confirmed").wait_for()
    assert page.evaluate("() => localStorage.length") == 0
    answer_all(page, shared)
    body = submit_answers(page)
    assert set(body["token"]) == {"message", "signature"}
    assert page.evaluate("() => localStorage.length") == 0
    assert stored(shared) == (1, 1)
