import numpy as np
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from surveys import services
from surveys.models import Survey
from surveys.selectors import languages
from surveys.services import grouping, translations

DEMO_USERNAME = "demo"
DEMO_PASSWORD = "demo-password"
DEMO_TITLE = "Workplace conduct survey (demo)"
DEMO_INTRO = (
    "A short anonymous survey about conduct at work. Your browser randomizes "
    "every answer before it is sent, so no answer can be held against you."
)
DEMO_YES_NO = (
    "Have you ever taken office supplies home for private use?",
    "Have you called in sick when you were not ill in the past year?",
    "Have you used drugs or alcohol during working hours in the past year?",
    "Have you ever falsified a timesheet or expense claim?",
)
# One question of every other kind, so `make run` shows each on the respondent and results
# pages: a yes/no question with Warner's design, a multiple-choice and a numeric question.
DEMO_WARNER = "Have you ever shared your work password with a colleague?"
DEMO_CHOICE = "How often do you work unpaid overtime?"
DEMO_CHOICE_OPTIONS = ("Never", "Once a month or less", "Every week", "Most days")
DEMO_NUMBER = "On how many days a week do you usually work from home?"
DEMO_QUESTIONS = (
    *DEMO_YES_NO,
    {"text": DEMO_WARNER, "design": {"kind": "warner", "p": 0.75}},
    {"text": DEMO_CHOICE, "type": "choice", "options": list(DEMO_CHOICE_OPTIONS)},
    {"text": DEMO_NUMBER, "type": "numeric", "min": 0, "max": 5, "epsilon": 2.0},
)
DEMO_GROUPING_QUESTION = "Which part of the company do you work in?"
# The simulated population: respondents per department and, per question, each
# department's truth: the share of "yes", the shares of the options, the mean number of
# days a week.
DEMO_DEPARTMENTS = (
    ("Warehouse", 1200, (0.50, 0.30, 0.15, 0.04, 0.20, (0.50, 0.30, 0.15, 0.05), 0.3)),
    ("Sales", 1000, (0.35, 0.25, 0.08, 0.10, 0.35, (0.20, 0.35, 0.30, 0.15), 1.5)),
    ("Office", 800, (0.30, 0.18, 0.05, 0.02, 0.40, (0.25, 0.30, 0.30, 0.15), 2.5)),
)


# The demo is offered in every site language (docs/languages-accessibility.md, "One survey,
# several languages"): each English text with its translations, found by the text itself so
# that every text the translations page lists gets its own.
DEMO_TRANSLATIONS = {
    "ko": {
        "Workplace conduct survey (demo)": "직장 내 행동 설문조사 (데모)",
        DEMO_INTRO: "직장 내 행동에 관한 짧은 익명 설문조사입니다. 모든 답은 전송되기 전에 "
        "브라우저가 무작위로 바꾸므로, 어떤 답도 당신에게 불리하게 쓰일 수 없습니다.",
        DEMO_YES_NO[0]: "사무용품을 개인적인 용도로 집에 가져간 적이 있습니까?",
        DEMO_YES_NO[1]: "지난 1년 동안 아프지 않은데 병가를 낸 적이 있습니까?",
        DEMO_YES_NO[2]: "지난 1년 동안 근무 시간에 약물이나 술을 사용한 적이 있습니까?",
        DEMO_YES_NO[3]: "근무 시간표나 경비 청구서를 허위로 작성한 적이 있습니까?",
        DEMO_WARNER: "업무용 비밀번호를 동료와 공유한 적이 있습니까?",
        DEMO_CHOICE: "무급 초과 근무를 얼마나 자주 합니까?",
        "Never": "전혀 안 함",
        "Once a month or less": "한 달에 한 번 이하",
        "Every week": "매주",
        "Most days": "거의 매일",
        DEMO_NUMBER: "보통 일주일에 며칠 재택근무를 합니까?",
        DEMO_GROUPING_QUESTION: "회사의 어느 부서에서 일합니까?",
        "Warehouse": "물류창고",
        "Sales": "영업",
        "Office": "사무",
    },
    "zh-hans": {
        "Workplace conduct survey (demo)": "职场行为调查（演示）",
        DEMO_INTRO: "这是一份关于职场行为的简短匿名调查。每个回答在发送前都会由你的浏览器"
        "随机化，因此任何回答都不能被用来针对你。",
        DEMO_YES_NO[0]: "你是否曾把办公用品带回家私用？",
        DEMO_YES_NO[1]: "过去一年里，你是否在没有生病时请过病假？",
        DEMO_YES_NO[2]: "过去一年里，你是否在工作时间使用过药物或饮酒？",
        DEMO_YES_NO[3]: "你是否曾伪造考勤表或报销单？",
        DEMO_WARNER: "你是否曾与同事共享过工作密码？",
        DEMO_CHOICE: "你多久做一次无偿加班？",
        "Never": "从不",
        "Once a month or less": "每月一次或更少",
        "Every week": "每周",
        "Most days": "几乎每天",
        DEMO_NUMBER: "你通常每周有几天在家办公？",
        DEMO_GROUPING_QUESTION: "你在公司的哪个部门工作？",
        "Warehouse": "仓库",
        "Sales": "销售",
        "Office": "办公室",
    },
}


def true_values():
    """Per question, the simulated population's truth: a share of "yes", the options'
    shares, or the mean number of days (each department weighted by its size)."""
    total = sum(n for _label, n, _truths in DEMO_DEPARTMENTS)

    def weighted(q):
        values = [(n, truths[q]) for _label, n, truths in DEMO_DEPARTMENTS]
        if isinstance(values[0][1], tuple):
            return tuple(
                sum(n * value[j] for n, value in values) / total for j in range(len(values[0][1]))
            )
        return sum(n * value for n, value in values) / total

    return [weighted(q) for q in range(len(DEMO_QUESTIONS))]


def _truth_text(question, value):
    kind = question.get("type") if isinstance(question, dict) else None
    if kind == "choice":
        return "(" + " / ".join(f"{share:.0%}" for share in value) + ")"
    if kind == "numeric":
        return f"mean {value:.2f}"
    return f"{value:.1%}"


class Command(BaseCommand):
    help = "Create a demo researcher and an open demo survey with simulated responses (idempotent)."

    def add_arguments(self, parser):
        parser.add_argument("--base-url", default="http://127.0.0.1:8000")
        parser.add_argument("--seed", type=int, default=20261121)

    @transaction.atomic
    def handle(self, *args, base_url, seed, **options):
        user, _created = get_user_model().objects.get_or_create(username=DEMO_USERNAME)
        # Always reset, so the credentials printed below are the ones that work.
        user.set_password(DEMO_PASSWORD)
        user.save()
        survey = Survey.objects.filter(owner=user, title=DEMO_TITLE).first()
        if survey is None:
            survey = self.create_demo_survey(user, seed)
        base = base_url.rstrip("/")
        self.stdout.write(
            "\n"
            f"  Researcher sign-in: {base}/accounts/login/  "
            f"(username {DEMO_USERNAME!r}, password {DEMO_PASSWORD!r})\n"
            f"  Respondent link:    {base}/s/{survey.slug}/\n"
            "  True values in the simulated population: "
            + ", ".join(
                _truth_text(question, value)
                for question, value in zip(DEMO_QUESTIONS, true_values(), strict=True)
            )
            + "\n"
        )

    def create_demo_survey(self, user, seed):
        survey = services.survey_create(
            owner=user,
            title=DEMO_TITLE,
            intro=DEMO_INTRO,
            questions=list(DEMO_QUESTIONS),
            min_n=30,
        )
        department = grouping.grouping_question_add(
            survey=survey,
            text=DEMO_GROUPING_QUESTION,
            options=[label for label, _n, _shares in DEMO_DEPARTMENTS],
        )
        table = languages.survey_translation_table(survey=survey)
        translations.survey_translations_save(
            survey=survey,
            texts={
                f"{code}-{text.key}": texts[text.source]
                for code, texts in DEMO_TRANSLATIONS.items()
                for text in table.texts
                if text.source in texts
            },
        )
        survey = services.survey_open(survey=survey)
        rng = np.random.default_rng(seed)
        reports, options = [], []
        for option, (_label, n, truths) in zip(
            department.options.all(), DEMO_DEPARTMENTS, strict=True
        ):
            reports.append(
                services.simulated_reports_draw(survey=survey, shares=truths, n=n, rng=rng)
            )
            options.extend([[option.pk]] * n)
        total = services.simulated_submissions_record(
            survey=survey, reports=np.vstack(reports), options=options
        )
        self.stdout.write(f"Created the demo survey with {total} simulated respondents.")
        return survey
