"""Benchmarks (``make bench``); a package so gunicorn can import ``bench.settings``."""
