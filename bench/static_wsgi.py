"""The benchmark's check on its client: a WSGI app that reads the body and answers a constant
201, no Django, no database. Served by gunicorn as the apps measured are, it shows what wrk
and gunicorn's sync workers allow on this machine (bench/bench_submissions.py)."""

BODY = b'{"submission_id": "00000000-0000-4000-8000-000000000000", "status": "recorded"}'


def application(environ, start_response):
    length = int(environ.get("CONTENT_LENGTH") or 0)
    environ["wsgi.input"].read(length)
    start_response(
        "201 Created", [("Content-Type", "application/json"), ("Content-Length", str(len(BODY)))]
    )
    return [BODY]
