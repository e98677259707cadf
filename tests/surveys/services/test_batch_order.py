def test_two_submissions_completing_a_batch_at_once_release_it_once(make_survey):
    """Ten submissions at once, two batches of five: each completes its batch or waits for the
    survey's row; none is lost, none counted twice, and nothing stays held."""
    from concurrent.futures import ThreadPoolExecutor
    from threading import Barrier

    from django.db import connections
    from rest_framework.test import APIClient

    survey = make_survey(questions=("Q?",), release_batch=5)
    question = survey.questions.get().pk
    count = 10
    barrier = Barrier(count)

    def send(_index):
        try:
            barrier.wait()
            return (
                APIClient()
                .post(
                    f"/api/v1/public/surveys/{survey.slug}/responses/",
                    {"submission_id": str(uuid.uuid4()), "answers": {str(question): True}},
                    format="json",
                )
                .status_code
            )
        finally:
            connections.close_all()

    with ThreadPoolExecutor(count) as pool:
        codes = list(pool.map(send, range(count)))
    assert codes == [201] * count
    survey.refresh_from_db()
    assert Submission.objects.filter(survey=survey).count() == count
    assert not Submission.all_objects.filter(survey=survey, held=True).exists()
    assert survey.response_count == count
