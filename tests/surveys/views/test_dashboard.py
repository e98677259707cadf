"""The dashboard finds surveys among many: search (title, link), sort and pages, all GET
parameters, so they work without a script and can be linked to (issue 14)."""

import re
from datetime import timedelta

import numpy as np
import pytest
from django.urls import reverse
from django.utils import timezone

from surveys import services
from surveys.models import Survey

pytestmark = pytest.mark.django_db

STATUSES = ("draft", "open", "closed")


@pytest.fixture
def sixty(make_survey, owner, other_researcher):
    """60 surveys of the owner, created a minute apart ("Survey 00" oldest), in turn draft,
    open and closed; every 7th has "Honesty" in its title; three have responses."""
    surveys = []
    start = timezone.now() - timedelta(days=1)
    for i in range(60):
        title = f"Survey {i:02d}" + (" on Honesty" if i % 7 == 0 else "")
        survey = make_survey(title=title, questions=["Q?"], status=STATUSES[i % 3])
        Survey.objects.filter(pk=survey.pk).update(created_at=start + timedelta(minutes=i))
        surveys.append(survey)
    for survey, n in ((surveys[4], 9), (surveys[31], 30), (surveys[58], 2)):
        services.simulated_submissions_record(survey=survey, reports=np.ones((n, 1), dtype=bool))
    make_survey(by=other_researcher, title="Survey 99 on Honesty")  # never listed
    return surveys


def listed(response):
    """The titles in the table, top to bottom."""
    html = response.content.decode()
    return re.findall(r'<td class="survey-table__title">\s*<a [^>]*>([^<]+)</a>', html)


def dashboard(client, **query):
    return client.get(reverse("surveys:dashboard"), query)


@pytest.mark.slow
def test_sixty_surveys_come_twenty_a_page_newest_first(owner_client, sixty):
    first = dashboard(owner_client)
    assert listed(first) == [f"Survey {i:02d}" + (" on Honesty" if i % 7 == 0 else "")
                             for i in range(59, 39, -1)]  # fmt: skip
    assert "Showing 1–20 of 60 surveys" in first.content.decode()
    assert "Page 1 of 3" in first.content.decode()
    last = dashboard(owner_client, page=3)
    assert listed(last)[-1] == "Survey 00 on Honesty"
    assert 'rel="next"' not in last.content.decode()
    assert 'rel="prev" href="?page=2"' in last.content.decode()


def test_search_matches_title_or_link_in_any_case_and_pages_keep_it(owner_client, sixty):
    response = dashboard(owner_client, q="honesty")
    assert listed(response) == [
        f"Survey {i:02d} on Honesty" for i in (56, 49, 42, 35, 28, 21, 14, 7, 0)
    ]
    assert "Survey 99" not in response.content.decode()  # another researcher's
    by_link = dashboard(owner_client, q=sixty[12].slug.upper())
    assert listed(by_link) == ["Survey 12"]
    # the page links keep the search and the sort
    many = dashboard(owner_client, q="survey", sort="title")
    assert 'rel="next" href="?q=survey&amp;sort=title&amp;page=2"' in many.content.decode()
    page_two = dashboard(owner_client, q="survey", sort="title", page=2)
    assert listed(page_two)[0].startswith("Survey 20")


def test_a_search_without_match_says_so_and_offers_the_whole_list(owner_client, sixty):
    html = dashboard(owner_client, q="zebra").content.decode()
    assert "No survey’s title or link contains “zebra”." in html
    assert 'class="survey-table"' not in html
    assert f'href="{reverse("surveys:dashboard")}">Show all surveys' in html


@pytest.mark.parametrize(
    ("sort", "top"),
    [
        ("newest", ["Survey 59", "Survey 58", "Survey 57"]),
        ("title", ["Survey 00 on Honesty", "Survey 01", "Survey 02"]),
        # open first (i % 3 == 1), newest first among them
        ("status", ["Survey 58", "Survey 55", "Survey 52"]),
        ("responses", ["Survey 31", "Survey 04", "Survey 58"]),
    ],
)
@pytest.mark.slow
def test_each_sort_orders_the_list(owner_client, sixty, sort, top):
    assert listed(dashboard(owner_client, sort=sort))[:3] == top


@pytest.mark.slow
def test_status_sort_puts_drafts_before_closed_surveys(owner_client, sixty):
    titles = listed(dashboard(owner_client, sort="status", page=2))
    statuses = [Survey.objects.get(owner=sixty[0].owner, title=t).status for t in titles]
    assert statuses == sorted(statuses, key=["open", "draft", "closed"].index)
    assert statuses[0] == "draft" and statuses[-1] == "draft"  # 20 open on page 1, 20 drafts


@pytest.mark.parametrize(
    ("query", "field", "bad"),
    [({"sort": "size"}, "Sort by", "size"), ({"page": "abc"}, "Page", None)],
)
@pytest.mark.slow
def test_bad_parameters_are_a_400_naming_the_field(owner_client, sixty, query, field, bad):
    response = dashboard(owner_client, **query)
    assert response.status_code == 400
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode()))
    assert f"{field}:" in text
    if bad:
        assert bad in text


def test_a_page_past_the_end_shows_the_last_page(owner_client, sixty):
    assert listed(dashboard(owner_client, page=9))[-1] == "Survey 00 on Honesty"


def test_the_dashboard_is_searchable_in_korean(owner_client, sixty):
    html = owner_client.get(
        reverse("surveys:dashboard"), {"q": "honesty"}, HTTP_ACCEPT_LANGUAGE="ko"
    ).content.decode()
    assert 'lang="ko"' in html
    assert "Search by title or link" not in html
    assert len(listed_html := re.findall(r'class="survey-table__title"', html)) == 9, listed_html


def test_the_dashboard_counts_the_questions_written_and_names_the_practice_apart(
    make_survey, owner_client
):
    """5 questions and a practice round per design: "5", not 7 (issue 36 item 2)."""
    questions = ["A?", {"text": "B?", "design": {"kind": "warner", "p": 0.75}}, "C?", "D?", "E?"]
    make_survey(questions=questions, comprehension_check=True)
    html = owner_client.get(reverse("surveys:dashboard")).content.decode()
    total = re.search(r'data-stat="question-total">(\d+)<', html).group(1)
    assert total == "5"
    practice = re.search(r'data-stat="practice-total">([^<]+)<', html).group(1)
    assert practice == "+ 2 practice rounds"
