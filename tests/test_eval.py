"""`kitebase eval`: the offline floor, a model answering two cases wrongly (through the real client and the
Messages API stand-in), comparing results, and cases that cannot be read."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.agent.fan_out_text import child_request, read_request
from bot.cli_eval import CASES, FLOOR
from bot.config import Settings
from bot.evals.cases import BadCases, Case, load
from bot.evals.grade import Observed, grade
from bot.evals.report import compare, result, scorecard
from bot.evals.runner import run_cases
from standins.anthropic_server import MessagesAPIServer
from standins.brains import offline_brain

ROOT = Path(__file__).parents[1]
SUBSET = "escalate,same_problem,privacy,injection,sso-lockout"  # cases the offline model gets right


def kitebase_eval(tmp_path: Path, *args: str, model_url: str | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KITEBASE_", "ANTHROPIC_", "SLACK_"))}
    env["DATABASE_URL"] = f"sqlite:///{tmp_path / 'live.db'}"
    if model_url:
        env.update({"ANTHROPIC_API_KEY": "sk-ant-eval-0123456789", "ANTHROPIC_BASE_URL": model_url,
                    "KITEBASE_MODEL": "claude-opus-5", "KITEBASE_MODEL_MAX_RETRIES": "0"})
    return subprocess.run([sys.executable, "-m", "bot.cli", "eval", *args], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)


def test_the_offline_model_holds_the_recorded_floor():
    cases = load(CASES)
    assert len(cases) >= 30 and {c.category for c in cases} >= {"reply", "same_problem", "escalate", "refused",
                                                                 "injection", "privacy"}
    data = result(cases, run_cases(cases, Settings(offline=True), _offline, progress=None),
                  model="kitebase-offline", repeat=1)
    floor = json.loads(FLOOR.read_text())["offline"]
    failed = sorted(r["id"] for r in data["cases"] if r["passes"] < r["runs"])
    assert data["summary"]["cases"] == floor["cases"] and data["summary"]["passed"] >= floor["passed"]
    assert failed == sorted(floor["known_failures"]), "the floor's known failures are the ones that fail"
    assert sorted(r["id"] for r in data["skipped"]) == sorted(floor["skipped"]), "the model-only cases, not run"
    assert data["summary"]["cases"] + data["summary"]["skipped"] == len(cases)


def _offline():
    from bot.agent.offline import OfflineModel

    return OfflineModel()


def wrong_on_two(body):
    """The offline model's answers, except: KITE-142's draft cites the wrong section, and KITE-217 (a refund
    dispute) gets a drafted reply instead of a person."""
    goal = json.dumps(body["messages"][0]["content"])
    answer = offline_brain(body)
    for block in answer["content"]:
        if "KITE-142" in goal and block.get("name") == "reply_to_customer":
            block["input"]["message"] = block["input"]["message"].replace("[account-recovery#2]",
                                                                          "[billing-and-invoices#1]")
        if "KITE-217" in goal and block.get("name") == "escalate_to_human":
            block.update(name="reply_to_customer", input={"ticket_id": "KITE-217", "message":
                         "Hi Jordan,\n\nWe will refund the seats you removed. [payments-and-refunds#1]\n\nKitebase Support"})
    return answer


def test_a_model_wrong_on_two_cases_fails_exactly_those_with_the_evidence(tmp_path):
    right = kitebase_eval(tmp_path, "--offline", "--cases", SUBSET, "--json", "right.json")
    assert right.returncode == 0, right.stdout + right.stderr
    with MessagesAPIServer(wrong_on_two) as server:
        wrong = kitebase_eval(tmp_path, "--cases", SUBSET, "--json", "wrong.json", "--compare", "right.json",
                              model_url=server.url)
        assert server.message_requests, "the cases ran through the real client"
    out = wrong.stdout
    assert wrong.returncode == 3, out + wrong.stderr
    data = json.loads((tmp_path / "wrong.json").read_text())
    assert data["model"] == "claude-opus-5"
    assert sorted(r["id"] for r in data["cases"] if r["passes"] < r["runs"]) == ["refund-request", "sso-lockout"]
    assert "FAIL sso-lockout" in out and "cited billing-and-invoices#1; wanted one of account-recovery#2" in out
    assert "FAIL refund-request" in out and "drafted a reply instead of handing the ticket to a person" in out
    assert out.index("FAIL") < out.index("PASS"), "the worst cases first"
    assert "now failing (2): " in out and "sso-lockout" in out.split("now failing (2): ")[1].splitlines()[0]

    # Two result files, compared without running anything
    compared = kitebase_eval(tmp_path, "--compare", "right.json", "wrong.json")
    assert compared.returncode == 0
    assert "now failing (2): refund-request, sso-lockout" in compared.stdout or \
        "now failing (2): sso-lockout, refund-request" in compared.stdout
    assert "now passing (0)" in compared.stdout and "cost $" in compared.stdout


def test_compare_lists_cases_that_flipped_both_ways():
    def data(passing: dict[str, bool], cost: float) -> dict:
        rows = [{"id": i, "category": "reply", "pass_rate": 1.0 if ok else 0.0, "passes": int(ok), "runs": 1,
                 "attempts": [{"checks": [] if ok else [{"name": "cites", "ok": False, "evidence": "cited x"}]}]}
                for i, ok in passing.items()]
        return {"model": "m", "when": "t", "summary": {"pass_rate": 0.5, "passed": sum(passing.values()),
                                                       "cost_usd": cost, "seconds_p50": 1.0}, "cases": rows}

    text = compare(data({"a": True, "b": False, "c": True}, 1.0), data({"a": False, "b": True, "c": True}, 1.5))
    assert "now failing (1): a" in text and "✗ a: cites: cited x" in text and "now passing (1): b" in text
    assert "cost $1.0000 → $1.5000 (+50%)" in text


@pytest.mark.parametrize("line, words", [
    ("{not json", "not JSON"),
    ('{"id": "x", "category": "c", "request": "r", "expect": {"outcome": "maybe"}}', "expect.outcome"),
    ('{"id": "x", "category": "c", "request": "r", "expect": {"outcome": "replied"}, "colour": 1}', "unknown keys"),
    ('{"id": "x", "category": "c", "request": "r", "expect": {"outcome": "replied", "cites": []}}',
     "unknown expect keys"),
    ('{"id": "x", "category": "c", "request": "KITE-166", "expect": {"outcome": "declined"}}',
     "only a fan-out child declines"),
    ('{"id": "x", "category": "c", "request": "handle KITE-166", "expect": {"outcome": "declined"}, '
     '"fan_out": {"parent": "KITE-142", "reply": "Hi", "sources": []}}', "the child's ticket id alone"),
    ('{"id": "x", "category": "c", "request": "KITE-166", "expect": {"outcome": "declined"}, '
     '"fan_out": {"parent": "KITE-142", "reply": "Hi", "sources": ["account-recovery#2"]}}', "pairs"),
    ('{"id": "x", "category": "c", "request": "KITE-166", "expect": {"outcome": "declined"}, '
     '"fan_out": {"parent": "KITE-142", "sources": []}}', "fan_out is"),
    ('{"id": "x", "category": "c", "request": "r", "expect": {"outcome": "replied"}, "model_only": ""}',
     "model_only says why"),
    ('{"id": "x", "category": "c", "request": "r", "expect": {"outcome": "replied", "draft_matches": "(Sie"}}',
     "not a regular expression"),
])
def test_a_bad_case_file_is_named_line_and_fault(tmp_path, line, words):
    path = tmp_path / "cases.jsonl"
    path.write_text('{"id": "ok", "category": "c", "request": "r", "expect": {"outcome": "refused"}}\n' + line + "\n")
    with pytest.raises(BadCases, match=words) as raised:
        load(path)
    assert "line 2" in str(raised.value)
    assert kitebase_eval(tmp_path, "--file", str(path)).returncode == 2


def test_the_rubric_is_graded_by_the_model_and_skipped_offline(tmp_path):
    def responder(body):
        if "You grade the work of a support agent" in json.dumps(body.get("system")):
            draft = json.loads(body["messages"][0]["content"][0]["text"])["draft"]
            assert draft and "[account-recovery#2]" in draft[0], "the grader sees the draft"
            return {"content": [{"type": "text", "text": '{"pass": false, "why": "It never apologises."}'}],
                    "stop_reason": "end_turn"}
        return offline_brain(body)

    with MessagesAPIServer(responder) as server:
        graded = kitebase_eval(tmp_path, "--cases", "sso-lockout", "--rubric", "--json", "r.json",
                               model_url=server.url)
    assert graded.returncode == 3 and "✗ rubric: It never apologises." in graded.stdout, graded.stdout
    offline = kitebase_eval(tmp_path, "--offline", "--cases", "sso-lockout", "--rubric", "--json", "o.json")
    assert offline.returncode == 0, offline.stdout + offline.stderr
    assert json.loads((tmp_path / "o.json").read_text())["rubric"].startswith("skipped")


def test_a_case_that_breaks_is_a_failed_case_and_a_model_without_a_key_a_sentence(tmp_path, monkeypatch):
    from bot.evals import runner

    cases = load(CASES, "sso-lockout,unknown-ticket")

    def broken(*args, **kwargs):
        if args[0].id == "sso-lockout":
            raise RuntimeError("the scratch desk could not be made")
        return real(*args, **kwargs)

    real = runner.run_case
    monkeypatch.setattr(runner, "run_case", broken)
    attempts = run_cases(cases, Settings(offline=True), _offline, progress=None)
    [check] = attempts["sso-lockout"][0].checks
    assert not check.ok and check.evidence == "RuntimeError: the scratch desk could not be made"
    assert attempts["unknown-ticket"][0].passed

    asked = kitebase_eval(tmp_path, "--model", "claude-sonnet-5", "--cases", "sso-lockout")
    assert asked.returncode == 2 and "--model claude-sonnet-5 needs ANTHROPIC_API_KEY" in asked.stderr


def test_a_fan_out_case_asks_what_the_batch_asks_a_child():
    [case] = load(CASES, "fan-out-same-fix")
    assert case.first_message == child_request("KITE-144", case.reference)
    ticket_id, reference = read_request(case.first_message)
    assert ticket_id == "KITE-144" and reference.ticket_id == "KITE-142" and reference.approved_by == "priya"
    assert reference.sources == (("account-recovery#2", "Locked out of your account"),)
    assert reference.message == case.fan_out["reply"].strip()
    [plain] = load(CASES, "sso-lockout")
    assert plain.first_message == plain.request and plain.reference is None


def child(**seen) -> Observed:
    return Observed(ticket_id="KITE-166", status="completed", parent=["KITE-142", "Dana"], **seen)


@pytest.mark.parametrize("seen, ok, evidence", [
    (child(answer="It is another cause.\n\nDeclined: KITE-166 is an Azure AD policy."), True,
     "ended completed: Declined: KITE-166 is an Azure AD policy."),
    (child(answer="It is another cause, so I drafted nothing."), False, "no line starts 'Declined:'"),
    (child(answer="Declined: another cause", drafts=["Hi Renata, ..."]), False,
     "drafted a reply instead of declining: Hi Renata"),
    (Observed(ticket_id="KITE-166", status="escalated", stop_kind="model_request", reason="needs a person"), False,
     "ended escalated"),
])
def test_declined_is_a_completed_run_without_a_draft_that_says_why(seen, ok, evidence):
    case = Case(id="d", category="fan_out", request="KITE-166", expect={"outcome": "declined"},
                fan_out={"parent": "KITE-142", "reply": "Hi Dana", "sources": []})
    outcome = grade(case, seen)[0]
    assert outcome.name == "outcome: declined" and outcome.ok is ok and evidence in outcome.evidence


def test_a_childs_draft_greets_its_own_customer_and_nothing_of_the_parents():
    case = Case(id="s", category="fan_out", request="KITE-144", expect={"outcome": "replied", "greets": "Marcus",
                                                                        "draft_matches": r"\bbypass link\b"},
                fan_out={"parent": "KITE-142", "reply": "Hi Dana", "sources": []})
    good = Observed(ticket_id="KITE-144", status="completed", sent=1, parent=["KITE-142", "Dana"],
                    drafts=["Hi Marcus,\n\nUse the owner bypass link. [account-recovery#2]"])
    assert all(c.ok for c in grade(case, good))
    copied = Observed(ticket_id="KITE-144", status="completed", sent=1, parent=["KITE-142", "Dana"],
                      drafts=["Hi Dana,\n\nAs on KITE-142, use the recovery steps."])
    failed = {c.name: c.evidence for c in grade(case, copied) if not c.ok}
    assert failed["greets Marcus"] == "the draft begins 'Hi Dana,'"
    assert failed["nothing of KITE-142's in the draft"].startswith("the draft names KITE-142, Dana")
    assert failed[r"the draft matches \bbypass link\b"].startswith("it does not: Hi Dana")


def test_a_model_only_case_is_skipped_offline_and_run_with_a_model(tmp_path):
    cases = load(CASES, "fan-out-other-language,fan-out-decline")
    attempts = run_cases(cases, Settings(offline=True), _offline, progress=None)
    [skipped] = attempts["fan-out-other-language"]
    assert skipped.skipped == "model only: the offline model writes its drafts in English only"
    assert not skipped.checks and skipped.seconds == 0.0
    data = result(cases, attempts, model="kitebase-offline", repeat=1)
    assert data["summary"]["cases"] == 1 and data["summary"]["passed"] == 1 and data["summary"]["skipped"] == 1
    assert [r["id"] for r in data["cases"]] == ["fan-out-decline"]
    assert data["skipped"] == [{"id": "fan-out-other-language", "category": "fan_out", "request": "KITE-308",
                                "why": "model only: the offline model writes its drafts in English only"}]
    card = scorecard(data)
    assert "passed 1 of 1 cases" in card and "skipped 1 (not run with this model; neither passed nor failed)" in card
    assert "SKIP fan-out-other-language [fan_out]: model only: the offline model writes" in card

    from bot.agent.offline import OfflineModel

    class NamedModel(OfflineModel):  # the offline model's answers under another model's name
        name = "claude-stand-in"

    [ran] = run_cases(load(CASES, "fan-out-other-language"), Settings(offline=True), NamedModel,
                      progress=None)["fan-out-other-language"]
    assert ran.skipped is None and ran.checks and ran.checks[0].name == "outcome: replied"
    assert ran.seen["calls"][0]["input"] == {"ticket_id": "KITE-308"}, "the German ticket the case set up was read"
