# rrsurvey — the two commands a new user needs are `make run` and `make test`.
SHELL := /bin/bash
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8000
# Development settings for `make run` and the test suite (Django's test runner still runs the
# tests with DEBUG off). Production reads DEBUG/SECRET_KEY from the environment instead.
DEV_ENV := DEBUG=1

.PHONY: run test test-fast test-module test-times test-python test-js constants test-browser-deps test-proxy-deps test-r-deps gettext-deps bench-deps messages lint format bench serve migrate clean

# --no-compile: Python compiles a module to bytecode when it first imports it, and the test
# targets keep that bytecode in .pytest_cache/pycache (TEST_ENV), where the files pip would
# compile into the virtualenv are never read; compiling every installed module up front cost a
# fresh clone 12 s of its 27 s of pip CPU (2026-12-02).
PIP_INSTALL := $(PY) -m pip install --quiet --no-compile
$(VENV)/.runtime-installed: requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP_INSTALL) --upgrade pip
	$(PIP_INSTALL) -r requirements.txt
	touch $@

$(VENV)/.dev-installed: $(VENV)/.runtime-installed requirements-dev.txt
	$(PIP_INSTALL) -r requirements-dev.txt
	touch $@

migrate: $(VENV)/.runtime-installed
	$(DEV_ENV) $(PY) manage.py migrate --noinput

## make run: install, migrate, load the demo researcher and survey, serve on 127.0.0.1:$(PORT)
## with the background worker (large exports, invitation emails: docs/deploying.md, "The worker")
## alongside; Ctrl-C stops both.
run: migrate
	$(DEV_ENV) $(PY) manage.py seed_demo --base-url http://127.0.0.1:$(PORT)
	$(DEV_ENV) SITE_URL=http://127.0.0.1:$(PORT) $(PY) manage.py db_worker --no-reload --verbosity 0 & worker=$$!; \
		trap 'kill $$worker 2>/dev/null; wait $$worker' EXIT; \
		$(DEV_ENV) $(PY) manage.py runserver 127.0.0.1:$(PORT)

## make serve: production-style serving (gunicorn + whitenoise, compressed and hashed static
## files); needs SECRET_KEY etc. from the environment (docs/deploying.md, "Deploying rrsurvey").
## Plain HTTP on loopback: SECRET_KEY=... SECURE_SSL_REDIRECT=off make serve
## Schedule `manage.py purge_trash` daily next to it (cron or a systemd timer; docs/deploying.md,
## "Deploying rrsurvey"): it deletes surveys that have been in the trash for TRASH_DAYS.
## Also `manage.py reorder_responses` daily at a quiet hour: it rewrites the stored responses in
## the order of their random keys, so the database files keep no arrival order.
## Also `manage.py apply_schedule` every few minutes: it stores as closed the surveys whose
## scheduled close time has passed (the schedule itself is enforced without it).
## And run `manage.py db_worker` as a service beside it: it writes large exports and sends
## invitation emails, their links starting with SITE_URL (the worker).
serve: $(VENV)/.runtime-installed
	$(PY) manage.py collectstatic --noinput
	$(PY) manage.py migrate --noinput
	GUNICORN_BIND=$${GUNICORN_BIND:-127.0.0.1:$(PORT)} WEB_CONCURRENCY=$${WEB_CONCURRENCY:-2} \
		exec $(VENV)/bin/gunicorn -c deploy/gunicorn.conf.py

## make test: everything — Python (unit, API, browser) and JavaScript
test: test-python test-js

test-browser-deps:
	@if ! command -v chromium >/dev/null 2>&1; then \
		echo "Installing Debian chromium for the browser tests..."; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium >/dev/null; \
	fi
	@command -v node >/dev/null 2>&1 || { echo "node (>= 20) is required for the JavaScript tests" >&2; exit 1; }

# tests/production/test_two_servers.py puts Debian's HAProxy in front of two app servers.
test-proxy-deps:
	@if ! command -v haproxy >/dev/null 2>&1 && ! test -x /usr/sbin/haproxy; then \
		echo "Installing haproxy for the two-server test..."; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq haproxy >/dev/null; \
	fi

# tests/surveys/exports/test_r_run.py runs the R estimates script in R with RRreg: R and the
# packages come from ../shared/r/install.sh beside the clone (CI has it), into R_LIBS_USER
# (default /tmp/rlib). Without it the test skips and says why.
R_INSTALL := ../shared/r/install.sh
test-r-deps:
	@if [ -f $(R_INSTALL) ]; then bash $(R_INSTALL); \
	else echo "No $(R_INSTALL): the R script test skips unless R with RRreg is installed"; fi

# The compiled catalogs (locale/*/LC_MESSAGES/*.mo) are committed, so serving needs no gettext;
# the translation tests and `make messages` do (xgettext, msgfmt, msgen).
gettext-deps:
	@if ! command -v msgfmt >/dev/null 2>&1 || ! command -v xgettext >/dev/null 2>&1; then \
		echo "Installing gettext for the translation tests..."; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq gettext >/dev/null; \
	fi

# Where translatable strings live: everything but tests, tools, docs and vendored files.
MESSAGES_IGNORE := -i 'tests/*' -i 'tools/*' -i 'bench/*' -i 'docs/*' -i 'deploy/*' -i 'dpengine/*' \
	-i 'static/vendor/*' -i 'node_modules/*' -i 'test-artifacts/*'

## make messages: refresh locale/*/LC_MESSAGES/*.po from the sources and compile the .mo files
## (then translate the new entries in ko and zh_Hans, and run it again to compile)
messages: $(VENV)/.runtime-installed gettext-deps
	$(DEV_ENV) $(PY) manage.py makemessages --all --no-obsolete --add-location file $(MESSAGES_IGNORE)
	$(DEV_ENV) $(PY) manage.py makemessages --all --no-obsolete --add-location file -d djangojs $(MESSAGES_IGNORE)
	$(DEV_ENV) $(PY) manage.py compilemessages -i '.venv' -i 'node_modules'

# The suite's Python processes (pytest and its workers, live servers, manage.py subprocesses)
# keep their bytecode, and pytest its rewritten test modules, in .pytest_cache/pycache rather
# than beside the sources, even where the shell sets PYTHONDONTWRITEBYTECODE (as the development
# machine does): recompiling every module costs each of them seconds of CPU (collection: about
# 14 s a worker instead of 6 s).
TEST_ENV := $(DEV_ENV) PYTHONDONTWRITEBYTECODE= PYTHONPYCACHEPREFIX=$(CURDIR)/.pytest_cache/pycache

# The Python suite runs on pytest-xdist workers, one more than the CPUs (PYTEST_WORKERS=0 for
# one process): a good part of the suite waits on Chromium, live servers and subprocesses, and a
# third worker on two cores keeps them busy meanwhile (.ci/run's PostgreSQL pass: 7 min 8 s on
# two workers, 5 min 25 s on three with its commits not waiting for the disk, quiet machine,
# 2026-12-02). `make test-fast` (no browser, no server: CPU-bound) keeps one worker per CPU.
# Each worker has its own test database (test_<name>_gw0, ...), live server and Chromium. loadfile
# keeps a module's tests on one worker, so a module-scoped live gunicorn (tests/live.py) starts
# and migrates its database once. (xdist 3.8's loadgroup cannot mark tests on pytest 9.2.)
# The workers take the longest files first (tests/conftest.py, from tests/file_times.txt), so
# neither waits long at the end for the other's last file: --no-loadscope-reorder keeps that
# order, where xdist would order the files by their number of tests.
XDIST := --dist loadfile --no-loadscope-reorder
PYTEST_WORKERS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) + 1 )))
# test-fast: one worker per CPU unless PYTEST_WORKERS is given on the command line or in the
# environment.
FAST_WORKERS := $(if $(filter file default,$(origin PYTEST_WORKERS)),auto,$(PYTEST_WORKERS))
test-python: $(VENV)/.dev-installed test-browser-deps test-proxy-deps test-r-deps gettext-deps
	$(TEST_ENV) $(PY) -m pytest -n $(PYTEST_WORKERS) $(XDIST) $(PYTEST_ARGS)

## make test-fast: the inner loop — everything but the browser (e2e) and the tests marked slow
## (by hand: live servers, subprocesses, statistical sweeps; by measurement: every test over
## FAST_BUDGET_MS of CPU, tests/measured_slow.txt), then node --test: 43 s of CPU and 26 s
## wall on a quiet machine, 2026-12-02 ("Timing" in tests/README.md).
## `make test` (and CI, .ci/run) still runs everything. PYTEST_ARGS narrows it as for
## test-python.
test-fast: $(VENV)/.dev-installed gettext-deps
	$(TEST_ENV) $(PY) -m pytest -n $(FAST_WORKERS) $(XDIST) -m "not slow and not e2e" $(PYTEST_ARGS)
	node --test tests/js/

## make test-module M=surveys/services/batches.py: the tests of the modules you changed (M takes
## several paths, files or packages) in one process: each one's mirrored test file
## (tests/surveys/services/test_batches.py) and every test file that imports it or a name its
## package re-exports from it (tests/for_module.py lists them), without the browser and the tests
## marked slow by hand (MARKS= runs those too); tests/measured_slow.txt does not apply here.
MARKS ?= not slow and not e2e
test-module: $(VENV)/.dev-installed
	@test -n "$(M)" || { echo "usage: make test-module M=path/to/module.py [MARKS=]" >&2; exit 2; }
	@files=$$($(PY) -m tests.for_module $(M)) && echo "$$files" | tr '\n' ' ' && echo && \
		$(TEST_ENV) $(PY) -m pytest -q --ignore-measured-slow $(if $(MARKS),-m "$(MARKS)") \
		$$files $(PYTEST_ARGS)

## make test-times: the whole suite with each test's CPU recorded (.pytest_cache/cpu/), the test
## files summed by CPU, tests/measured_slow.txt rewritten (the tests over FAST_BUDGET_MS of CPU
## that no mark leaves out of `make test-fast`) and tests/file_times.txt (each file's seconds,
## the order the workers take the files in): "Timing" in tests/README.md.
FAST_BUDGET_MS ?= 20
test-times: $(VENV)/.dev-installed test-browser-deps test-proxy-deps test-r-deps gettext-deps
	rm -rf .pytest_cache/cpu
	-$(TEST_ENV) $(PY) -m pytest -n $(PYTEST_WORKERS) $(XDIST) -p tests.cpu_times -q $(PYTEST_ARGS)
	$(PY) -m tests.cpu_times > .pytest_cache/cpu/files.txt; head -40 .pytest_cache/cpu/files.txt
	$(PY) -m tests.cpu_times slow $(FAST_BUDGET_MS) > tests/measured_slow.txt
	$(PY) -m tests.cpu_times files > tests/file_times.txt

test-js: test-browser-deps
	node --test tests/js/

## make constants: rewrite tests/vectors/constants.json and static/js/constants.js from dpengine,
## surveys/limits.py and surveys/models/ (tools/constants.py); after changing a formula, a
## sampler, a bound or a code the browser shares. `make test` fails until they are rewritten
## (tests/tools/test_constants.py), and node --test holds the browser's code to them.
constants: $(VENV)/.runtime-installed
	$(DEV_ENV) $(PY) -m tools.constants

lint: $(VENV)/.dev-installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: $(VENV)/.dev-installed
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

## make bench: the benchmarks (docs/benchmarks.md), on SQLite and on PostgreSQL when it answers at
## BENCH_POSTGRES_URL. Production settings (each script sets them for its servers). A few minutes
## at the default BENCH_SCALE=100000; BENCH_SCALE=1000000 make bench for the documented figures.
# bench/bench_submissions.py drives the servers with wrk (a C load generator): a Python client
# on the same cores sets the pace itself.
bench-deps:
	@if ! command -v wrk >/dev/null 2>&1; then \
		echo "Installing wrk for the submission benchmark..."; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq wrk >/dev/null; \
	fi

bench: $(VENV)/.dev-installed bench-deps
	@for script in bench/bench_*.py; do echo "== $$script"; $(PY) $$script || exit 1; echo; done

clean:
	rm -rf $(VENV) staticfiles .pytest_cache db.sqlite3 db.sqlite3-*
