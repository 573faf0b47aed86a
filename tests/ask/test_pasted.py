"""A question asking who said or asked for something ("who asked us to bring the reports back") lifts the person's
messages that are mostly pasted: whose words they hold is the answer, while the turns around them repeat the
question's words without a name."""

from __future__ import annotations

from pathlib import Path

from tests.ask.moments import SHOP, found_by, memory_of, session

from vyre_memory.read.trust import holds_pasted

PASTED = (
    "from the ops office this morning:\n\n---\nDe: Irene Vasquez\n"
    "Buenos días, el equipo de turno pide que vuelvan los informes diarios por correo. Sin ellos no sabemos qué "
    "pasó durante la noche y perdemos media hora cada mañana. ¿Se puede volver a activar antes del lunes?\n---"
)


TOPICAL = [
    "the daily reports job failed again last night, check the cron",
    "move the daily reports to the new mailer and keep the old template",
    "the daily reports should go to the shift leads only, not the whole team",
    "add the overnight incidents to the daily reports, at the top",
    "the daily reports are back, but the attachment is empty",
    "why are the daily reports two hours late this week",
    "split the daily reports by site, one email each",
    "bring the daily reports link into the dashboard header too",
    "the daily reports template breaks in outlook, fix the table widths",
    "turn the daily reports back on for the weekend shift as well",
    "the daily reports count yesterday's tickets twice, dedupe them",
    "put the daily reports behind the same login as the rest of the portal",
    "the daily reports should say which site each alarm came from",
    "send me the daily reports as csv too, i want them in a sheet",
    "the daily reports footer still has last year's phone number",
    "can the daily reports skip empty sections",
    "the daily reports cron runs in utc, it should run at 6 local",
    "archive the daily reports older than a year",
    "the daily reports went back to the old layout after the deploy, bring the new one back",
    "roll the daily reports mailer back to 2.3, the new one drops the summary",
    "the daily reports come back as bounced from the north site",
    "push the daily reports back an hour, they land before the night shift ends",
    "we need the daily reports graphs back, the text-only version is unreadable",
    "the daily reports job should back off and retry when the mail server is down",
    "bring the daily reports summary line back into the subject",
    "the weekly digest can go, but the daily reports stay, bring them back on the test site",
]


def _history(root: Path) -> None:
    asked = session(root, SHOP, "asked", 2)
    asked.user(PASTED)
    asked.assistant("Noted. I'll look at the mailer after lunch.")
    for day, said in enumerate(TOPICAL, start=3):  # turns on the question's subject that say nobody's name
        work = session(root, SHOP, f"reports-{day}", day)
        work.user(said)
        work.assistant(f"Done: {said.split(',')[0]}. The daily reports tests pass.")



def test_who_asked_finds_the_pasted_message(tmp_path: Path) -> None:
    for memory in memory_of(tmp_path, _history):
        question = "who asked us to bring the daily reports back"
        assert PASTED in found_by(memory, question, "hybrid", k=5)
        assert PASTED not in found_by(memory, question, "hybrid-pasted", k=5)


def test_a_pasted_message_is_told_from_the_persons_own_words() -> None:
    assert holds_pasted(PASTED)
    assert not holds_pasted("bring the daily reports back, keep the email template as it was")
