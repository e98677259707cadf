import numpy as np
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from surveys import languages, services
from surveys.models import Survey
from surveys.services import grouping, translations

DEMO_USERNAME = "demo"
DEMO_PASSWORD = "demo-password"
DEMO_TITLE = "Workplace conduct survey (demo)"
DEMO_QUESTIONS = (
    "Have you ever taken office supplies home for private use?",
    "Have you called in sick when you were not ill in the past year?",
    "Have you used drugs or alcohol during working hours in the past year?",
    "Have you ever falsified a timesheet or expense claim?",
)
DEMO_GROUPING_QUESTION = "Which part of the company do you work in?"
# The simulated population: respondents per department and each department's true share of
# "yes" per question, so estimates on the results and breakdown pages can be checked.
DEMO_DEPARTMENTS = (
    ("Warehouse", 1200, (0.50, 0.30, 0.15, 0.04)),
    ("Sales", 1000, (0.35, 0.25, 0.08, 0.10)),
    ("Office", 800, (0.30, 0.18, 0.05, 0.02)),
)


# The demo is offered in every site language (docs/languages-accessibility.md, "One survey,
# several languages"): the
# translations of the title, intro, questions, grouping question and options, in that order.
DEMO_TRANSLATIONS = {
    "ko": (
        "직장 내 행동 설문조사 (데모)",
        "직장 내 행동에 관한 짧은 익명 설문조사입니다. 모든 답은 전송되기 전에 브라우저가 "
        "무작위로 바꾸므로, 어떤 답도 당신에게 불리하게 쓰일 수 없습니다.",
        "사무용품을 개인적인 용도로 집에 가져간 적이 있습니까?",
        "지난 1년 동안 아프지 않은데 병가를 낸 적이 있습니까?",
        "지난 1년 동안 근무 시간에 약물이나 술을 사용한 적이 있습니까?",
        "근무 시간표나 경비 청구서를 허위로 작성한 적이 있습니까?",
        "회사의 어느 부서에서 일합니까?",
        "물류창고",
        "영업",
        "사무",
    ),
    "zh-hans": (
        "职场行为调查（演示）",
        "这是一份关于职场行为的简短匿名调查。每个回答在发送前都会由你的浏览器随机化，"
        "因此任何回答都不能被用来针对你。",
        "你是否曾把办公用品带回家私用？",
        "过去一年里，你是否在没有生病时请过病假？",
        "过去一年里，你是否在工作时间使用过药物或饮酒？",
        "你是否曾伪造考勤表或报销单？",
        "你在公司的哪个部门工作？",
        "仓库",
        "销售",
        "办公室",
    ),
}


def true_shares():
    total = sum(n for _label, n, _shares in DEMO_DEPARTMENTS)
    return [
        sum(n * shares[q] for _label, n, shares in DEMO_DEPARTMENTS) / total
        for q in range(len(DEMO_QUESTIONS))
    ]


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
            "  True shares in the simulated population: "
            + ", ".join(f"{share:.1%}" for share in true_shares())
            + "\n"
        )

    def create_demo_survey(self, user, seed):
        survey = services.survey_create(
            owner=user,
            title=DEMO_TITLE,
            intro=(
                "A short anonymous survey about conduct at work. Your browser randomizes "
                "every answer before it is sent, so no answer can be held against you."
            ),
            questions=DEMO_QUESTIONS,
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
                f"{code}-{text.key}": translated
                for code, texts in DEMO_TRANSLATIONS.items()
                for text, translated in zip(table.texts, texts, strict=True)
            },
        )
        survey = services.survey_open(survey=survey)
        rng = np.random.default_rng(seed)
        reports, options = [], []
        for option, (_label, n, shares) in zip(
            department.options.all(), DEMO_DEPARTMENTS, strict=True
        ):
            reports.append(
                services.simulated_reports_draw(survey=survey, shares=shares, n=n, rng=rng)
            )
            options.extend([[option.pk]] * n)
        total = services.simulated_submissions_record(
            survey=survey, reports=np.vstack(reports), options=options
        )
        self.stdout.write(f"Created the demo survey with {total} simulated respondents.")
        return survey
