"""The eval grades substance (bot/evals/cases.py, grade.py): what a correct draft must say and must not say, each
failed check with its evidence; and `before`, what happened on the desk before the lead's request."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli_eval import CASES
from bot.config import Settings
from bot.evals.cases import BadCases, Case, load
from bot.evals.grade import Observed, grade
from bot.evals.report import result, scorecard
from bot.evals.runner import run_cases

DRAFT = ("Hi Sione,\n\nIf your workspace uses single sign-on, click \"Continue with SSO\"  and sign in through your\n"
         "identity provider. [account-recovery#2]\n\nBest regards,\nKitebase Support")


def case(**expect) -> Case:
    return Case(id="s", category="reads_customer", request="handle KITE-153", expect={"outcome": "replied", **expect})


def failed(c: Case, seen: Observed) -> dict[str, str]:
    return {check.name: check.evidence for check in grade(c, seen) if not check.ok}


def sent(*drafts: str) -> Observed:
    return Observed(ticket_id="KITE-153", status="completed", sent=1, drafts=list(drafts))


def test_a_draft_that_says_what_it_must_not_fails_with_the_words_around_it():
    c = case(must_not_say=["continue with sso", "Refund"])
    checks = failed(c, sent(DRAFT))
    assert list(checks) == ["does not say 'continue with sso'"], "case-insensitive; a phrase it avoids passes"
    assert checks["does not say 'continue with sso'"].startswith("the draft says it: …")
    assert 'click "Continue with SSO" and sign in' in checks["does not say 'continue with sso'"]


def test_a_draft_must_say_one_phrase_of_every_group():
    c = case(must_say=[["30 minutes", "half an hour"], "identity provider", ["bypass"]])
    assert c.must_say == [["30 minutes", "half an hour"], ["identity provider"], ["bypass"]]
    checks = failed(c, sent(DRAFT))
    assert set(checks) == {"says '30 minutes' or 'half an hour'", "says 'bypass'"}, \
        "'identity provider' is said, across a line break"
    assert checks["says 'bypass'"].startswith("the draft says none of them: Hi Sione, If your workspace uses")
    assert failed(case(must_say=[["Half an HOUR"]]), sent("Wait half an hour.")) == {}


def test_no_draft_fails_what_it_must_say_and_passes_what_it_must_not():
    seen = Observed(ticket_id="KITE-142", status="escalated", stop_kind="model_request", reason="a person should")
    c = Case(id="e", category="no_repeat", request="handle KITE-142",
             expect={"outcome": "escalated", "must_say": [["bypass"]], "must_not_say": ["bypass"]})
    assert failed(c, seen) == {"says 'bypass'": "no draft"}


def test_the_scorecard_prints_a_failed_substance_check_with_its_evidence():
    from bot.evals.runner import Attempt

    c = case(must_not_say=["Continue with SSO"])
    seen = sent(DRAFT)
    checks = grade(c, seen)
    attempt = Attempt(passed=all(k.ok for k in checks), checks=checks, seconds=0.1, cost_usd=0.0, tokens=1,
                      model_calls=1, status="completed", drafts=seen.drafts)
    card = scorecard(result([c], {"s": [attempt]}, model="m", repeat=1))
    assert "FAIL s [reads_customer]" in card
    assert "✗ does not say 'Continue with SSO': the draft says it: …" in card


@pytest.mark.parametrize("fields, words", [
    ('"must_say": ["bypass", []]', "expect.must_say is a list of groups"),
    ('"must_say": "bypass"', "expect.must_say is a list of groups"),
    ('"must_not_say": [""]', "expect.must_not_say is a list of phrases"),
    ('"must_not_say": "bypass"', "expect.must_not_say is a list of phrases"),
])
def test_a_bad_substance_check_is_named(tmp_path, fields, words):
    path = tmp_path / "cases.jsonl"
    path.write_text('{"id": "x", "category": "c", "request": "handle KITE-142", "expect": {"outcome": "replied", '
                    + fields + "}}\n")
    with pytest.raises(BadCases, match=words):
        load(path)


@pytest.mark.parametrize("before", [
    '{"request": ""}', '{"ticket_id": "KITE-142"}', '{"ticket_id": "nope", "message": "hi"}',
    '{"ticket_id": "KITE-142", "message": "hi", "role": "staff"}', '"handle KITE-142"',
])
def test_a_bad_before_step_is_named(tmp_path, before):
    path = tmp_path / "cases.jsonl"
    path.write_text('{"id": "x", "category": "c", "request": "handle KITE-142", "expect": {"outcome": "replied"}, '
                    f'"before": [{before}]}}\n')
    with pytest.raises(BadCases, match="a step of before is"):
        load(path)


def _offline():
    from bot.agent.offline import OfflineModel

    return OfflineModel()


def test_before_works_a_run_and_adds_the_customers_message_first(tmp_path: Path):
    """Dana's follow-up after the agent's reply: the case's run must not send her the same reply again."""
    path = tmp_path / "cases.jsonl"
    base = {"category": "no_repeat", "request": "handle KITE-142",
            "expect": {"outcome": "escalated", "must_not_say": ["owner bypass link"]}}
    cases = [{"id": "after-her-message", **base, "before": [
                 {"request": "handle KITE-142"},
                 {"ticket_id": "KITE-142", "message": "The link expired before I could use it.", "author": "Dana W"}]},
             {"id": "first-time", **base}]
    path.write_text("".join(json.dumps(c) + "\n" for c in cases))
    attempts = run_cases(load(path), Settings(offline=True), _offline, progress=None)
    [after] = attempts["after-her-message"]
    assert after.passed, [(c.name, c.evidence) for c in after.checks if not c.ok]
    assert after.drafts == [] and "The link expired before I could use it." in after.report
    assert after.seen["calls"][0]["name"] == "get_ticket", "only the case's own run is observed"
    [first] = attempts["first-time"]
    evidence = {c.name: c.evidence for c in first.checks if not c.ok}
    assert evidence["outcome: escalated"].startswith("drafted a reply instead of handing the ticket to a person")
    assert evidence["does not say 'owner bypass link'"].startswith("the draft says it: …")


def test_the_suites_substance_cases():
    cases = {c.id: c for c in load(CASES)}
    substance = [c for c in cases.values() if "must_say" in c.expect or "must_not_say" in c.expect]
    assert len(substance) >= 20
    assert "Continue with SSO" in cases["no-sso-lockout"].expect["must_not_say"]
    dana = cases["bypass-expired-no-repeat"]
    assert dana.outcome == "escalated" and dana.before[0] == {"request": "handle KITE-142"}
