"""Deleting a survey moves it to the owner's trash for TRASH_DAYS; then it is purged."""

import uuid
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from surveys import services
from surveys.models import Question, Submission, Survey
from tests.helpers import answers_for

pytestmark = pytest.mark.django_db


def trash_it(client, survey):
    return client.post(reverse("surveys:delete", kwargs={"pk": survey.pk}))


def test_the_confirmation_lists_every_export_including_the_r_file(owner_client, frozen_survey):
    page = owner_client.get(reverse("surveys:delete", kwargs={"pk": frozen_survey.pk}))
    content = page.content.decode()
    for name in ("export-zip", "codebook-csv", "estimates-csv", "responses-csv", "r-export"):
        assert reverse(f"surveys:{name}", kwargs={"pk": frozen_survey.pk}) in content, name
    assert "30 days" in content


def test_a_trashed_survey_is_gone_from_pages_api_and_respondents(
    owner_client, owner_api, frozen_survey, respondent
):
    assert trash_it(owner_client, frozen_survey).status_code == 302
    assert (
        owner_client.get(reverse("surveys:builder", kwargs={"pk": frozen_survey.pk})).status_code
        == 404
    )
    assert owner_api.get(f"/api/v1/surveys/{frozen_survey.pk}/").status_code == 404
    assert frozen_survey.pk not in [s["id"] for s in owner_api.get("/api/v1/surveys/").json()]
    assert respondent.get(f"/api/v1/public/surveys/{frozen_survey.slug}/").status_code == 404
    assert Client().get(f"/s/{frozen_survey.slug}/").status_code == 404
    assert Client().get(f"/r/{frozen_survey.slug}/").status_code == 404
    body = {"submission_id": str(uuid.uuid4()), "answers": answers_for(frozen_survey, [1, 0])}
    body["answers"] = {str(k): bool(v) for k, v in body["answers"].items()}
    refused = respondent.post(
        f"/api/v1/public/surveys/{frozen_survey.slug}/responses/", body, format="json"
    )
    assert refused.status_code == 404  # as if it had never existed, on both databases
    assert Submission.objects.filter(survey_id=frozen_survey.pk).count() == 1


def test_the_owner_restores_a_trashed_survey_with_its_responses(owner_client, frozen_survey):
    trash_it(owner_client, frozen_survey)
    listing = owner_client.get(reverse("surveys:trash")).content.decode()
    assert frozen_survey.title in listing
    response = owner_client.post(reverse("surveys:restore", kwargs={"pk": frozen_survey.pk}))
    assert response.status_code == 302
    restored = Survey.objects.get(pk=frozen_survey.pk)
    assert restored.status == Survey.Status.CLOSED
    assert restored.response_count == 1
    assert Question.objects.filter(survey=restored).count() == 2


def test_another_researcher_can_neither_see_nor_restore_the_trash(
    owner_client, frozen_survey, other_researcher
):
    trash_it(owner_client, frozen_survey)
    client = Client()
    client.force_login(other_researcher)
    assert frozen_survey.title not in client.get(reverse("surveys:trash")).content.decode()
    restore = client.post(reverse("surveys:restore", kwargs={"pk": frozen_survey.pk}))
    assert restore.status_code == 404
    assert Survey.all_objects.get(pk=frozen_survey.pk).deleted_at is not None


def test_restoring_a_survey_not_in_the_trash_is_a_404(owner_client, open_survey):
    response = owner_client.post(reverse("surveys:restore", kwargs={"pk": open_survey.pk}))
    assert response.status_code == 404


def test_the_api_delete_moves_to_the_trash_too(owner_api, frozen_survey):
    assert owner_api.delete(f"/api/v1/surveys/{frozen_survey.pk}/").status_code == 204
    assert Survey.all_objects.get(pk=frozen_survey.pk).deleted_at is not None


def test_purge_removes_only_surveys_trashed_longer_than_the_window(make_survey, settings):
    settings.TRASH_DAYS = 30
    old, recent, kept = make_survey(title="Old"), make_survey(title="Recent"), make_survey()
    services.survey_delete(survey=old)
    services.survey_delete(survey=recent)
    now = timezone.now()
    Survey.all_objects.filter(pk=old.pk).update(deleted_at=now - timedelta(days=30, seconds=1))
    Survey.all_objects.filter(pk=recent.pk).update(deleted_at=now - timedelta(days=29))
    assert services.trash_purge(now=now) == 1
    assert not Survey.all_objects.filter(pk=old.pk).exists()
    assert not Question.objects.filter(survey_id=old.pk).exists()
    assert Survey.all_objects.filter(pk=recent.pk).exists()
    assert Survey.objects.filter(pk=kept.pk).exists()


def test_the_purge_command_reports_what_it_deleted(make_survey, capsys):
    survey = make_survey()
    services.survey_delete(survey=survey)
    Survey.all_objects.filter(pk=survey.pk).update(deleted_at=timezone.now() - timedelta(days=31))
    call_command("purge_trash")
    assert "Purged 1 survey(s)" in capsys.readouterr().out
    assert not Survey.all_objects.filter(pk=survey.pk).exists()


def test_trashed_surveys_do_not_count_against_the_survey_limit(owner, make_survey, settings):
    settings.MAX_SURVEYS_PER_USER = 1
    services.survey_delete(survey=make_survey())
    assert services.survey_create(owner=owner, title="A new one").pk
