"""The survey pages of surveys/urls.py and how to reach each: the table of what its owner gets,
and a URL for any route on a given survey (making the question, grouping question, member,
invitation or export job the route names when the survey has none). Plain helpers, shared by
the ownership tests (tests/surveys/views/test_common.py), the roles (test_roles.py) and the
API's caching headers (tests/surveys/api/test_private_caching.py)."""

from django.urls import reverse

from surveys import urls as page_urls
from surveys.exports import jobs as export_files
from surveys.models import GroupingOption, GroupingQuestion, Invitation
from surveys.services import export_jobs, invitations

# What the owner gets for a plain GET on each survey route. Built against the URL map: a new
# route fails test_owner_route_table_covers_the_url_map (tests/surveys/views/test_common.py)
# until it is listed here.
GET_STATUS_FOR_OWNER = {
    "builder": 200,
    "question-add": 405,
    "question-edit": 200,
    "question-delete": 405,
    "question-move": 405,
    "preview": 200,
    "translations": 200,
    "open": 200,  # the confirmation page
    "close": 405,
    "duplicate": 405,
    "pilot": 405,
    "pilot-discard": 200,  # the confirmation page
    "schedule": 405,
    "delete": 200,
    "restore": 404,  # only a survey in the owner's trash can be restored
    "share": 200,
    "qr": 200,
    "results": 200,
    "estimates-csv": 200,
    "responses-csv": 200,
    "responses-sav": 200,
    "responses-dta": 200,
    "codebook-csv": 200,
    "export-zip": 200,
    "export-xlsx": 200,
    "grouping-add": 405,
    "grouping-edit": 200,
    "grouping-delete": 405,
    "breakdown": 200,
    "regression": 200,
    "r-export": 200,
    "estimates-r": 200,
    "planner": 200,
    "public-settings": 200,
    "members": 200,
    "member-leave": 405,
    "member-role": 405,
    "member-remove": 405,
    "transfer": 200,
    "invitation-withdraw": 405,
    "export-job": 200,
    "export-job-status": 200,
    "export-job-file": 200,
    "export-job-codebook": 200,
    "invitees": 200,
    "invitees-remind": 405,
    "invitees-links-csv": 200,
    "invitees-export-csv": 200,
    "invitees-sheet": 200,
    "invitee-reset": 405,
    "invitee-revoke": 200,  # the confirmation page
    "release-batch": 405,
}


def owner_routes():
    """Every page route that takes a survey id, read from surveys/urls.py."""
    return [
        pattern
        for pattern in page_urls.urlpatterns
        if "pk" in pattern.pattern.converters and pattern.name
    ]


def route_url(pattern, survey):
    kwargs = {"pk": survey.pk}
    if "qid" in pattern.pattern.converters:
        kwargs["qid"] = survey.questions.first().pk
    if "gid" in pattern.pattern.converters:
        grouping_question = survey.grouping_questions.first() or with_grouping_question(survey)
        kwargs["gid"] = grouping_question.pk
    if "uid" in pattern.pattern.converters:
        member = survey.members.first()
        kwargs["uid"] = member.user_id if member else survey.owner_id
    if "iid" in pattern.pattern.converters and pattern.name.startswith("invitee-"):
        kwargs["iid"] = respondent_invitation(survey).pk
    elif "iid" in pattern.pattern.converters:
        invitation = survey.member_invitations.first()
        kwargs["iid"] = invitation.pk if invitation else 0
    if "job_id" in pattern.pattern.converters:
        kwargs["job_id"] = (survey.export_jobs.first() or finished_export(survey)).pk
    return reverse(f"surveys:{pattern.name}", kwargs=kwargs)


def finished_export(survey):
    """A responses CSV written by an export job, as the worker would."""
    job = export_jobs.export_job_start(survey=survey, user=survey.owner, kind="reports", options={})
    return export_files.export_job_run(job_id=job.pk)


def respondent_invitation(survey):
    """An invitation of ``survey`` to answer it (docs/invitations.md), stored directly."""
    found = Invitation.objects.filter(survey=survey).first()
    if found is not None:
        return found
    code = invitations.new_code()
    return Invitation.objects.create(
        survey=survey,
        code_digest=invitations.code_digest(code),
        sealed_code=invitations.code_seal(code, survey_id=survey.pk),
    )


def with_grouping_question(survey):
    """A grouping question on ``survey`` even when it is open (frozen): stored directly, as
    one added before the survey opened would be."""
    question = GroupingQuestion.objects.create(survey=survey, position=0, text="Which team?")
    GroupingOption.objects.bulk_create(
        GroupingOption(grouping_question=question, position=index, label=label)
        for index, label in enumerate(["Red", "Blue"])
    )
    return question


def response_routes(*, survey_id, slug):
    """Every researcher page and API route that shows what a survey's responses say, by name:
    (path, whether it is the API's). The scale bench (bench/bench_scale.py) times each, and
    tests/surveys/views/test_pages_read_no_responses.py holds each to reading no response row."""
    page, api = f"/surveys/{survey_id}/", f"/api/v1/surveys/{survey_id}/"
    return {
        "dashboard page": ("/surveys/", False),
        "survey builder page": (page, False),
        "results page": (f"{page}results/", False),
        "estimates CSV (page's download)": (f"{page}estimates.csv", False),
        "estimates API (JSON)": (f"{api}estimates/", True),
        "estimates API (CSV)": (f"{api}estimates.csv", True),
        "breakdown page": (f"{page}breakdown/", False),
        "regression page": (f"{page}regression/", False),
        "regression API": (f"{api}regression/", True),
        "planner page": (f"{page}planner/", False),
        "codebook (page's download)": (f"{page}codebook.csv", False),
        "codebook API": (f"{api}codebook.csv", True),
        "survey API": (api, True),
        "survey list API": ("/api/v1/surveys/", True),
        "invitations page": (f"{page}invitees/", False),
        "public settings page": (f"{page}public/", False),
        "public results page": (f"/r/{slug}/", False),
    }
