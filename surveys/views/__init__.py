"""Server-rendered pages, one module per audience or task (``surveys/urls.py`` maps them).

``common`` holds what they share (the role check, saving through a service); ``researcher``
the dashboard, settings and a survey's life; ``questions`` the builder's questions;
``analysis`` results, downloads and analyses; ``respondent`` the public pages; ``accounts``,
``members`` and ``translations`` their pages.
"""
