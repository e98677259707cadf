"""Migrations that move stored data carry it over both ways."""

import datetime
import uuid

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("surveys", "0002_grouping_and_public_results")]
AFTER = [("surveys", "0003_report_tallies_on_the_survey")]
PACKED = [("surveys", "0004_reports_in_the_submission_row")]
FROZEN = [("surveys", "0005_survey_frozen_at_first_opening")]
PRE_SHARDS = [("surveys", "0009_survey_trash")]
SHARDED = [("surveys", "0010_tallies_in_shards")]
DAY = datetime.date(2026, 11, 2)


def latest():
    """The app's newest migration, whatever its number."""
    return MigrationExecutor(connection).loader.graph.leaf_nodes("surveys")


def migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.fixture(scope="module", autouse=True)
def schema_back_at_the_latest_migration_after_the_module(django_db_setup, django_db_blocker):
    """Each test migrates from wherever the schema is to the range it tests, and the module
    returns the schema to the latest migration once, at its end, for the tests after it on the
    worker: in file order (oldest range first) the tests so migrate back and forth through the
    37 migrations about once in all, not each test to the latest one and back (SQLite: 16 s of
    CPU for the module instead of 46 s).

    A test leaves the schema where the current models know every table, so that its flush can
    empty the database: PostgreSQL refuses to TRUNCATE a table that another, unflushed one
    references, as surveys_report (before 0004) and surveys_surveyinvitation (0018 to 0032,
    renamed by 0033) reference the survey and its questions."""
    yield
    with django_db_blocker.unblock():
        migrate(latest())


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_question_tallies_move_to_the_survey_and_back(owner):
    apps = migrate(BEFORE)
    Survey = apps.get_model("surveys", "Survey")
    Question = apps.get_model("surveys", "Question")
    answered = Survey.objects.create(owner_id=owner.pk, title="Answered", response_count=9)
    first = Question.objects.create(
        survey=answered, position=0, text="A?", report_count=9, yes_count=4
    )
    second = Question.objects.create(
        survey=answered, position=1, text="B?", report_count=8, yes_count=0
    )
    draft = Survey.objects.create(owner_id=owner.pk, title="Draft")
    unanswered = Question.objects.create(survey=draft, position=0, text="C?")

    apps = migrate(AFTER)
    Survey = apps.get_model("surveys", "Survey")
    assert Survey.objects.get(pk=answered.pk).report_tallies == {
        f"q{first.pk}": [9, 4],
        f"q{second.pk}": [8, 0],
    }
    assert Survey.objects.get(pk=draft.pk).report_tallies == {f"q{unanswered.pk}": [0, 0]}

    apps = migrate(BEFORE)
    Question = apps.get_model("surveys", "Question")
    assert sorted(Question.objects.values_list("id", "report_count", "yes_count")) == [
        (first.pk, 9, 4),
        (second.pk, 8, 0),
        (unanswered.pk, 0, 0),
    ]
    migrate(PACKED)  # the next migration: surveys_report goes (see the module fixture)


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_report_rows_move_into_their_submission_and_back(owner):
    apps = migrate(AFTER)
    Survey = apps.get_model("surveys", "Survey")
    Question = apps.get_model("surveys", "Question")
    Submission = apps.get_model("surveys", "Submission")
    Report = apps.get_model("surveys", "Report")
    survey = Survey.objects.create(owner_id=owner.pk, title="Answered", response_count=2)
    first = Question.objects.create(survey=survey, position=0, text="A?")
    second = Question.objects.create(survey=survey, position=1, text="B?")
    stored = [
        Submission.objects.create(survey=survey, submission_id=uuid.uuid4(), received_on=DAY)
        for _ in range(2)
    ]
    rows = [(stored[0], first, True), (stored[0], second, False), (stored[1], first, False)]
    for submission, question, bit in rows:
        Report.objects.create(submission=submission, question=question, reported_yes=bit)

    apps = migrate(PACKED)
    Submission = apps.get_model("surveys", "Submission")
    assert list(Submission.objects.order_by("pk").values_list("reports", flat=True)) == [
        {f"q{first.pk}": True, f"q{second.pk}": False},
        {f"q{first.pk}": False},
    ]

    apps = migrate(AFTER)
    Report = apps.get_model("surveys", "Report")
    assert sorted(
        Report.objects.values_list("submission_id", "question_id", "reported_yes")
    ) == sorted((submission.pk, question.pk, bit) for submission, question, bit in rows)
    migrate(PACKED)


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_surveys_already_opened_are_frozen_with_their_fingerprint(owner):
    from surveys.models import design_fingerprint_of

    apps = migrate(PACKED)
    Survey = apps.get_model("surveys", "Survey")
    Question = apps.get_model("surveys", "Question")
    GroupingQuestion = apps.get_model("surveys", "GroupingQuestion")
    GroupingOption = apps.get_model("surveys", "GroupingOption")
    surveys = {
        status: Survey.objects.create(owner_id=owner.pk, title=status, status=status)
        for status in ("draft", "open", "closed")
    }
    for survey in surveys.values():
        Question.objects.create(survey=survey, position=0, text="A?")
    gq = GroupingQuestion.objects.create(survey=surveys["open"], position=0, text="Team?")
    GroupingOption.objects.create(grouping_question=gq, position=0, label="Red")
    GroupingOption.objects.create(grouping_question=gq, position=1, label="Blue")

    apps = migrate(FROZEN)
    Survey = apps.get_model("surveys", "Survey")
    draft, opened, closed = (Survey.objects.get(title=s) for s in ("draft", "open", "closed"))
    assert (draft.opened_at, draft.design_fingerprint) == (None, "")
    assert closed.opened_at is not None and opened.opened_at is not None
    question = apps.get_model("surveys", "Question").objects.get(survey=opened)
    options = apps.get_model("surveys", "GroupingOption").objects.order_by("position")
    assert opened.design_fingerprint == design_fingerprint_of(
        p_truth=0.5,
        p_forced_yes=0.5,
        questions=[(question.pk, "A?")],
        grouping=[(gq.pk, "Team?", [(o.pk, o.label) for o in options])],
    )
    assert closed.design_fingerprint != opened.design_fingerprint


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_survey_tallies_move_into_shards_and_back(owner):
    apps = migrate(PRE_SHARDS)
    Survey = apps.get_model("surveys", "Survey")
    answered = Survey.objects.create(
        owner_id=owner.pk,
        title="Answered",
        status="open",
        response_count=9,
        report_tallies={"q1": [9, 4], "q2": [8, 0]},
    )
    draft = Survey.objects.create(owner_id=owner.pk, title="Draft")

    apps = migrate(SHARDED)
    TallyShard = apps.get_model("surveys", "TallyShard")
    assert list(TallyShard.objects.values_list("survey_id", "shard", "responses", "reports")) == [
        (answered.pk, 0, 9, {"q1": [9, 4], "q2": [8, 0]})
    ]
    # Later submissions land in other shards; back, the survey's row holds their sum.
    TallyShard.objects.create(survey_id=answered.pk, shard=5, responses=2, reports={"q1": [2, 1]})

    apps = migrate(PRE_SHARDS)
    Survey = apps.get_model("surveys", "Survey")
    assert sorted(Survey.objects.values_list("id", "response_count", "report_tallies")) == [
        (answered.pk, 11, {"q1": [11, 5], "q2": [8, 0]}),
        (draft.pk, 0, {}),
    ]
    migrate(SHARDED)


COUNTED_KEYS = [("surveys", "0016_question_types")]
RANDOM_KEYS = [("surveys", "0017_random_row_keys")]


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_stored_submissions_and_grouping_answers_lose_their_counted_keys(owner):
    apps = migrate(COUNTED_KEYS)
    Survey = apps.get_model("surveys", "Survey")
    Submission = apps.get_model("surveys", "Submission")
    GroupingQuestion = apps.get_model("surveys", "GroupingQuestion")
    GroupingOption = apps.get_model("surveys", "GroupingOption")
    GroupAnswer = apps.get_model("surveys", "GroupAnswer")
    survey = Survey.objects.create(owner_id=owner.pk, title="Answered", status="open")
    gq = GroupingQuestion.objects.create(survey=survey, position=0, text="Department?")
    option = GroupingOption.objects.create(grouping_question=gq, position=0, label="Sales")
    arrived = []
    for index in range(30):
        submission = Submission.objects.create(
            survey=survey, submission_id=uuid.uuid4(), received_on=DAY, reports={"q1": index}
        )
        GroupAnswer.objects.create(
            submission=submission, grouping_question=gq, option=option if index % 2 else None
        )
        arrived.append(submission.submission_id)
    counted = list(Submission.objects.order_by("id").values_list("submission_id", flat=True))
    assert counted == arrived  # what the migration removes

    apps = migrate(RANDOM_KEYS)
    Submission = apps.get_model("surveys", "Submission")
    GroupAnswer = apps.get_model("surveys", "GroupAnswer")
    rows = list(Submission.objects.order_by("id").values_list("submission_id", "reports"))
    assert [sid for sid, _reports in rows] != arrived
    assert sorted(sid for sid, _reports in rows) == sorted(arrived)
    # Every row is still its own, and each grouping answer still belongs to its submission.
    assert {sid: reports["q1"] for sid, reports in rows} == {
        sid: index for index, sid in enumerate(arrived)
    }
    assert {
        sid: option_id is not None
        for sid, option_id in GroupAnswer.objects.values_list(
            "submission__submission_id", "option_id"
        )
    } == {sid: index % 2 == 1 for index, sid in enumerate(arrived)}
    # Far above every counted key (a random 63-bit key is below 2**32 once in 2**31).
    assert min(Submission.objects.values_list("id", flat=True)) > 2**32
    assert min(GroupAnswer.objects.values_list("id", flat=True)) > 2**32

    apps = migrate(COUNTED_KEYS)
    assert apps.get_model("surveys", "Submission").objects.count() == 30
    migrate(RANDOM_KEYS)


PRE_HISTOGRAMS = [("surveys", "0023_invitations")]
HISTOGRAMS = [("surveys", "0024_numeric_histograms")]
BEFORE_CELLS = [("surveys", "0026_comprehension")]
CELLS = [("surveys", "0027_regression_cells")]


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_stored_numeric_reports_are_counted_into_histograms(owner):
    apps = migrate(PRE_HISTOGRAMS)
    Survey = apps.get_model("surveys", "Survey")
    Question = apps.get_model("surveys", "Question")
    Submission = apps.get_model("surveys", "Submission")
    survey = Survey.objects.create(owner_id=owner.pk, title="Answered", status="open")
    other = Survey.objects.create(owner_id=owner.pk, title="Other", status="open")
    numeric, direct, bit = (
        Question.objects.create(survey=survey, position=position, text=f"{position}?", **fields)
        for position, fields in enumerate(
            [
                {"kind": "numeric", "min_value": 0, "max_value": 30, "epsilon": 1.0},
                {"kind": "numeric", "min_value": 0, "max_value": 9, "randomized": False},
                {},
            ]
        )
    )
    elsewhere = Question.objects.create(
        survey=other, position=0, text="?", kind="numeric", min_value=0, max_value=5, epsilon=1.0
    )
    stored = [
        (survey, {f"q{numeric.pk}": 12, f"q{direct.pk}": 3, f"q{bit.pk}": True}),
        (survey, {f"q{numeric.pk}": -40, f"q{direct.pk}": 3}),
        (survey, {f"q{numeric.pk}": 12, f"q{bit.pk}": False}),
        (survey, {f"q{direct.pk}": 4}),  # the optional numeric question left out
        (other, {f"q{elsewhere.pk}": 12}),
    ]
    for target, reports in stored:
        Submission.objects.create(
            survey=target, submission_id=uuid.uuid4(), received_on=DAY, reports=reports
        )

    apps = migrate(HISTOGRAMS)
    NumericTally = apps.get_model("surveys", "NumericTally")
    assert sorted(NumericTally.objects.values_list("question_id", "report", "count")) == sorted(
        [(numeric.pk, 12, 2), (numeric.pk, -40, 1), (elsewhere.pk, 12, 1)]
    )

    migrate(PRE_HISTOGRAMS)
    assert "surveys_numerictally" not in connection.introspection.table_names()
    migrate(MEMBER_INVITATION)  # surveys_surveyinvitation renamed (see the module fixture)


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_the_regression_cells_are_counted_from_the_stored_rows(owner):
    apps = migrate(BEFORE_CELLS)
    Survey = apps.get_model("surveys", "Survey")
    Question = apps.get_model("surveys", "Question")
    GroupingQuestion = apps.get_model("surveys", "GroupingQuestion")
    GroupingOption = apps.get_model("surveys", "GroupingOption")
    Submission = apps.get_model("surveys", "Submission")
    GroupAnswer = apps.get_model("surveys", "GroupAnswer")
    survey = Survey.objects.create(owner_id=owner.pk, title="Answered", status="open")
    yes_no = Question.objects.create(survey=survey, position=0, text="A?")
    choice = Question.objects.create(
        survey=survey, position=1, text="B?", kind="choice", options=["x", "y"], epsilon=1.0
    )
    team = GroupingQuestion.objects.create(survey=survey, position=0, text="Team?")
    site = GroupingQuestion.objects.create(survey=survey, position=1, text="Site?")
    red, blue = (
        GroupingOption.objects.create(grouping_question=team, position=i, label=label)
        for i, label in enumerate(["Red", "Blue"])
    )
    north = GroupingOption.objects.create(grouping_question=site, position=0, label="North")
    # (report to A, team option, site option: None declined, "skip" no answer)
    rows = [
        (True, red, north),
        (False, red, north),
        (True, red, north),
        (True, blue, None),
        (False, blue, "skip"),
        (None, red, north),  # A skipped: in no cell of A
        (True, "skip", "skip"),  # no grouping answer: in no cell
    ]
    for index, (report, team_option, site_option) in enumerate(rows):
        reports = {f"q{choice.pk}": 1}
        if report is not None:
            reports[f"q{yes_no.pk}"] = report
        submission = Submission.objects.create(
            id=2**40 + index,
            survey=survey,
            submission_id=uuid.uuid4(),
            received_on=DAY,
            reports=reports,
        )
        for key, (question, option) in enumerate([(team, team_option), (site, site_option)]):
            if option != "skip":
                GroupAnswer.objects.create(
                    id=2**41 + 2 * index + key,
                    submission=submission,
                    grouping_question=question,
                    option=option,
                )

    apps = migrate(CELLS)
    GroupCell = apps.get_model("surveys", "GroupCell")
    assert sorted(
        GroupCell.objects.values_list("question_id", "key", "report_count", "yes_count")
    ) == sorted(
        [
            (yes_no.pk, f"{team.pk}:{red.pk},{site.pk}:{north.pk}", 3, 2),
            (yes_no.pk, f"{team.pk}:{blue.pk},{site.pk}:-", 1, 1),
            (yes_no.pk, f"{team.pk}:{blue.pk}", 1, 0),
        ]
    )
    migrate(MEMBER_INVITATION)  # surveys_surveyinvitation renamed (see the module fixture)


BEFORE_MEMBER_INVITATION = [("surveys", "0032_positions")]
MEMBER_INVITATION = [("surveys", "0033_member_invitation")]


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_co_researchers_invitations_keep_their_rows_under_the_new_name(owner, other_researcher):
    apps = migrate(BEFORE_MEMBER_INVITATION)
    Survey = apps.get_model("surveys", "Survey")
    SurveyInvitation = apps.get_model("surveys", "SurveyInvitation")
    invitee = other_researcher
    survey = Survey.objects.create(owner_id=owner.pk, title="Shared")
    by_name = SurveyInvitation.objects.create(
        survey=survey, user_id=invitee.pk, role="editor", invited_by_id=owner.pk
    )
    by_email = SurveyInvitation.objects.create(
        survey=survey, email="new@lab.example", role="viewer", invited_by_id=owner.pk
    )

    apps = migrate(MEMBER_INVITATION)
    MemberInvitation = apps.get_model("surveys", "MemberInvitation")
    assert "surveys_surveyinvitation" not in connection.introspection.table_names()
    assert sorted(MemberInvitation.objects.values_list("id", "user_id", "email", "role")) == [
        (by_name.pk, invitee.pk, "", "editor"),
        (by_email.pk, None, "new@lab.example", "viewer"),
    ]
    Survey = apps.get_model("surveys", "Survey")
    assert Survey.objects.get(pk=survey.pk).member_invitations.count() == 2
    constraints = connection.introspection.get_constraints(
        connection.cursor(), "surveys_memberinvitation"
    )
    assert {name for name in constraints if "invitation" in name} >= {
        "member_invitation_one_addressee",
        "member_invitation_role_valid",
        "member_invitation_one_per_user",
        "member_invitation_one_per_email",
    }
    assert not any(name.startswith("survey_invitation_") for name in constraints)

    apps = migrate(BEFORE_MEMBER_INVITATION)
    SurveyInvitation = apps.get_model("surveys", "SurveyInvitation")
    assert SurveyInvitation.objects.count() == 2
    migrate(MEMBER_INVITATION)


BEFORE_TALLY_SHARDS = [("surveys", "0034_day_tallies")]
TALLY_SHARDS = [("surveys", "0035_tally_shards")]


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_the_grouping_counts_and_tallies_are_kept_in_shard_0(owner):
    apps = migrate(BEFORE_TALLY_SHARDS)
    Survey = apps.get_model("surveys", "Survey")
    Question = apps.get_model("surveys", "Question")
    GroupingQuestion = apps.get_model("surveys", "GroupingQuestion")
    GroupingOption = apps.get_model("surveys", "GroupingOption")
    survey = Survey.objects.create(owner_id=owner.pk, title="Answered", status="open")
    question = Question.objects.create(survey=survey, position=0, text="A?")
    team = GroupingQuestion.objects.create(
        survey=survey, position=0, text="Team?", declined_count=2
    )
    red = GroupingOption.objects.create(
        grouping_question=team, position=0, label="Red", respondent_count=5
    )
    blue = GroupingOption.objects.create(grouping_question=team, position=1, label="Blue")
    apps.get_model("surveys", "GroupTally").objects.create(
        question=question, option=red, report_count=5, yes_count=3
    )
    apps.get_model("surveys", "GroupCell").objects.create(
        question=question, key=f"{team.pk}:{red.pk}", report_count=5, yes_count=3
    )
    apps.get_model("surveys", "NumericTally").objects.create(
        id=2**41, question=question, report=4, count=7
    )

    apps = migrate(TALLY_SHARDS)
    GroupingTally = apps.get_model("surveys", "GroupingTally")
    assert sorted(
        GroupingTally.objects.filter(shard=0).values_list("option_id", "count"), key=repr
    ) == sorted([(red.pk, 5), (blue.pk, 0), (None, 2)], key=repr)
    assert not GroupingTally.objects.exclude(shard=0).exclude(count=0).exists()
    assert GroupingTally.objects.count() == 3 * 16
    GroupTally = apps.get_model("surveys", "GroupTally")
    assert list(
        GroupTally.objects.filter(report_count__gt=0).values_list("shard", "yes_count")
    ) == [(0, 3)]
    assert GroupTally.objects.count() == 16  # every shard's row, as opening a survey makes
    assert list(
        apps.get_model("surveys", "GroupCell").objects.values_list("shard", "yes_count")
    ) == [(0, 3)]
    assert list(
        apps.get_model("surveys", "NumericTally").objects.values_list("shard", "count")
    ) == [(0, 7)]


TALLY_FILLFACTOR = [("surveys", "0036_lighter_submission_writes")]
TALLY_TABLES = (
    "surveys_tallyshard",
    "surveys_daytally",
    "surveys_numerictally",
    "surveys_grouptally",
    "surveys_groupingtally",
    "surveys_groupcell",
)


def _fillfactors():
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT relname, reloptions FROM pg_class WHERE relname = ANY(%s)", [list(TALLY_TABLES)]
        )
        return dict(cursor.fetchall())


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's fillfactor")
def test_the_tally_tables_leave_room_on_each_page_and_back():
    migrate(latest())
    assert _fillfactors() == {table: ["fillfactor=20"] for table in TALLY_TABLES}
    migrate(TALLY_SHARDS)
    assert _fillfactors() == {table: ["fillfactor=100"] for table in TALLY_TABLES}
    migrate(TALLY_FILLFACTOR)
    assert _fillfactors() == {table: ["fillfactor=20"] for table in TALLY_TABLES}
    migrate(latest())


BEFORE_OPTION_TALLIES = [("surveys", "0039_invite_reshuffle_index")]
OPTION_TALLIES = [("surveys", "0040_grouped_tallies_per_option")]


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_the_per_question_group_tallies_gather_into_one_row_per_option_and_back(owner):
    apps = migrate(BEFORE_OPTION_TALLIES)
    Survey = apps.get_model("surveys", "Survey")
    Question = apps.get_model("surveys", "Question")
    GroupingQuestion = apps.get_model("surveys", "GroupingQuestion")
    GroupingOption = apps.get_model("surveys", "GroupingOption")
    GroupTally = apps.get_model("surveys", "GroupTally")
    survey = Survey.objects.create(owner_id=owner.pk, title="Answered", status="open")
    first, second = (
        Question.objects.create(survey=survey, position=n, text=f"{n}?") for n in range(2)
    )
    team = GroupingQuestion.objects.create(survey=survey, position=0, text="Team?")
    red, blue = (
        GroupingOption.objects.create(grouping_question=team, position=n, label=label)
        for n, label in enumerate(("Red", "Blue"))
    )
    # (question, option, shard, reports, yes reports): counts in several shards, zero rows.
    stored = [
        (first.pk, red.pk, 0, 5, 3),
        (second.pk, red.pk, 0, 4, 0),
        (first.pk, red.pk, 7, 2, 2),
        (second.pk, red.pk, 7, 2, 1),
        (first.pk, blue.pk, 0, 0, 0),
        (second.pk, blue.pk, 0, 0, 0),
        (first.pk, blue.pk, 15, 1, 1),
        (second.pk, blue.pk, 15, 1, 0),
    ]
    GroupTally.objects.bulk_create(
        GroupTally(question_id=q, option_id=o, shard=s, report_count=n, yes_count=yes)
        for q, o, s, n, yes in stored
    )

    apps = migrate(OPTION_TALLIES)
    rows = apps.get_model("surveys", "GroupTally").objects.values_list(
        "option_id", "shard", "reports"
    )
    assert sorted(rows, key=repr) == sorted(
        [
            (red.pk, 0, {f"q{first.pk}": [5, 3], f"q{second.pk}": [4, 0]}),
            (red.pk, 7, {f"q{first.pk}": [2, 2], f"q{second.pk}": [2, 1]}),
            (blue.pk, 0, {f"q{first.pk}": [0, 0], f"q{second.pk}": [0, 0]}),
            (blue.pk, 15, {f"q{first.pk}": [1, 1], f"q{second.pk}": [1, 0]}),
        ],
        key=repr,
    )
    # The app reads the same totals per (question, option) as the rows they came from gave.
    migrate(latest())
    from surveys.models import GroupTally as Current

    assert sorted(Current.objects.filter(option__grouping_question=team.pk).totals()) == sorted(
        [
            (first.pk, red.pk, 7, 5),
            (second.pk, red.pk, 6, 1),
            (first.pk, blue.pk, 1, 1),
            (second.pk, blue.pk, 1, 0),
        ]
    )

    apps = migrate(BEFORE_OPTION_TALLIES)
    GroupTally = apps.get_model("surveys", "GroupTally")
    assert sorted(
        GroupTally.objects.values_list(
            "question_id", "option_id", "shard", "report_count", "yes_count"
        )
    ) == sorted(stored)
    migrate(latest())
