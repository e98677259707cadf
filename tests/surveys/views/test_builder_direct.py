"""The builder asks directly only when the researcher confirms (issue 27 item 1): a direct or
text question without the confirmation is refused next to it, nothing stored; with it, the
question is stored direct and listed as "asked directly, no ε"."""

import pytest
from django.urls import reverse

from surveys.services.question_types import question_type_spec

pytestmark = pytest.mark.django_db


def add_url(survey):
    return reverse("surveys:question-add", kwargs={"pk": survey.pk})


@pytest.fixture
def draft(make_survey):
    return make_survey(status="draft", questions=[])


@pytest.mark.parametrize(
    ("post", "spec"),
    [
        (
            {"question_type": "yes_no", "design": "warner", "asked_directly": "on"},
            {"type": "yes_no", "randomized": False},
        ),
        (
            {"question_type": "choice", "options": "A\nB", "asked_directly": "on"},
            {"type": "choice", "randomized": False, "options": ["A", "B"]},
        ),
        (
            {"question_type": "numeric", "min": "0", "max": "9", "asked_directly": "on"},
            {"type": "numeric", "randomized": False, "min": 0, "max": 9},
        ),
        ({"question_type": "text"}, {"type": "text", "randomized": False}),
    ],
)
@pytest.mark.slow
def test_a_direct_question_needs_the_confirmation(draft, owner_client, post, spec):
    refused = owner_client.post(add_url(draft), {"text": "Asked?", **post})
    assert refused.status_code == 400
    page = refused.content.decode()
    assert "Tick this to ask the question directly" in page
    assert not draft.questions.exists()
    stored = owner_client.post(add_url(draft), {"text": "Asked?", **post, "direct_confirmed": "on"})
    assert stored.status_code == 302
    assert [question_type_spec(q) for q in draft.questions.all()] == [spec]
    builder = owner_client.get(reverse("surveys:builder", kwargs={"pk": draft.pk}))
    assert "asked directly, no ε" in builder.content.decode()


def test_the_builder_offers_the_confirmation_naming_the_consequence(draft, owner_client):
    page = owner_client.get(reverse("surveys:builder", kwargs={"pk": draft.pk})).content.decode()
    assert 'name="asked_directly"' in page and 'name="direct_confirmed"' in page
    assert "no ε covers it" in page
