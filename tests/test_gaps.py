"""Knowledge gaps: which runs show that the help center did not answer well, grouped by topic with the tickets
behind them; crafted runs for each signal, then real offline runs through the CLI."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from bot.db.models import Approval, Escalation, Run
from bot.runs.lifecycle.service import RunService
from bot.runs.reports import gaps, stats
from tests.test_figures import DRAFT

NOW = datetime.now(UTC)


def messages(query: str, result: str, draft: str | None = None) -> list[dict]:
    found = [{"role": "user", "content": [{"type": "text", "text": "handle"}]},
             {"role": "assistant", "content": [{"type": "tool_use", "id": "s1", "name": "search_help",
                                                "input": {"query": query}}]},
             {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "s1", "content": result}]}]
    if draft is not None:
        found.append({"role": "assistant", "content": [{"type": "tool_use", "id": "r1", "name": "reply_to_customer",
                                                        "input": {"message": draft}}]})
    return found


HIT = "[account-recovery#2] Locked out of your account — Account recovery\nbody"
MISS = "No help-center sections match 'vat number invoice'. Try other words."


def add(session, ticket: str, msgs: list[dict], *, status: str = "completed", draft: str | None = None,
        draft_status: str = "approved", edit: str | None = None, asked: bool = False) -> Run:
    run = Run(goal=f"handle {ticket}", ticket_id=ticket, status=status, messages=msgs, reason="the agent asked for a "
              "person: the help center has nothing on this" if asked else None, created_at=NOW - timedelta(hours=1))
    session.add(run)
    session.flush()
    if draft is not None:
        session.add(Approval(run_id=run.id, tool_use_id="r1", tool_name="reply_to_customer", fingerprint="f",
                             tool_input={"ticket_id": ticket, "message": draft}, status=draft_status,
                             edited_input={"message": edit} if edit else None))
    if asked:
        session.add(Escalation(run_id=run.id, kind="model_request", reason=run.reason))
    return run


@pytest.fixture
def found(db):
    with db.session() as session:
        add(session, "KITE-142", messages("locked sso", HIT, DRAFT), draft=DRAFT)  # answered well: no signal
        add(session, "KITE-101", messages("vat number invoice", MISS), status="escalated", asked=True)
        add(session, "KITE-144", messages("okta certificate", HIT, "Hi, please restart."), draft="Hi, please restart.")
        add(session, "KITE-139", messages("sso loop okta", HIT, DRAFT), draft=DRAFT, draft_status="edited",
            edit="Hi, this is a known Okta issue; we reset your SSO config, try again now.")
        add(session, "KITE-102", messages("csv export timeout", HIT, DRAFT), draft=DRAFT, draft_status="edited",
            edit=DRAFT + " Thanks!")  # a small edit is not a rewrite
        add(session, "KITE-209", messages("inbox flooded comment emails", HIT, DRAFT), draft=DRAFT,
            draft_status="rejected", status="escalated", asked=True)  # the lead said no: nothing went out
    with db.session() as session:
        return gaps.knowledge_gaps(session, *stats.window(NOW, 30 * 86400))


def signals_of(found, ticket):
    return sorted(s["kind"] for t in found["topics"] for m in t["tickets"] if m["ticket_id"] == ticket
                  for s in m["signals"])


def test_each_signal_and_only_those(found):
    assert found["runs_considered"] == 6
    assert signals_of(found, "KITE-142") == [] and signals_of(found, "KITE-102") == []
    assert signals_of(found, "KITE-101") == ["escalated_no_answer", "no_help_found"]
    assert signals_of(found, "KITE-144") == ["no_citation"]
    assert signals_of(found, "KITE-139") == ["rewritten"]
    assert signals_of(found, "KITE-209") == ["escalated_no_answer"]
    [rejected] = [t for t in found["topics"] if t["tickets"][0]["ticket_id"] == "KITE-209"]
    assert rejected["articles"] == ["account-recovery#2"], "the section the rejected draft was built on"


def test_topics_group_tickets_sharing_two_tags_and_name_what_to_fix(found):
    by_name = {t["topic"]: t for t in found["topics"]}
    sso = [t for t in found["topics"] if {m["ticket_id"] for m in t["tickets"]} == {"KITE-144", "KITE-139"}]
    assert len(sso) == 1, f"the two Okta/SSO tickets form one topic: {list(by_name)}"
    assert {"sso", "login"} <= set(sso[0]["tags"]) and "account-recovery#2" in sso[0]["articles"]
    billing = [t for t in found["topics"] if [m["ticket_id"] for m in t["tickets"]] == ["KITE-101"]][0]
    assert billing["articles"] == [] and billing["tickets"][0]["questions"] == ["Invoice is missing our VAT number",
                                                                               "vat number invoice"]
    assert found["topics"][0] is sso[0], "the biggest topic first"


def test_topics_are_transitive():
    tickets = [{"ticket_id": i, "tags": tags, "title": i, "signals": [], "articles": []}
               for i, tags in (("a", ["x", "y"]), ("b", ["y", "z", "x"]), ("c", ["z", "y"]), ("d", ["q"]))]
    assert sorted(len(t["tickets"]) for t in gaps.topics(tickets)) == [1, 3]




def test_stats_and_gaps_from_the_cli_after_real_runs(cli, database_url):
    code, out, _ = cli("run", "handle KITE-142", "--approve", "auto")
    assert code == 0 and "sources: cites account-recovery#2 (Locked out of your account)" in out, "shown before deciding"
    assert cli("run", "handle KITE-103", "--approve", "reject")[0] == 3
    code, out, _ = cli("run", "handle KITE-139", "--json")
    run_id = json.loads(out)["run_id"]  # a decision names the run, as `kitebase runs` shows it
    assert cli("approve", str(run_id), "--edit", "Hi Ana, we reset your SSO settings by hand; sign in again.",
               "--as", "ULEAD", "--yes")[0] == 0
    assert cli("feedback", "1", "up", "--as", "ULEAD")[0] == 0
    assert cli("feedback", "3", "down", "--note", "too generic", "--as", "ULEAD")[0] == 0

    code, out, _ = cli("stats", "--json")
    fig = json.loads(out)
    assert code == 0 and fig["runs"]["total"] == 3 and fig["runs"]["completed"] == 2
    assert (fig["drafts"]["sent_as_written"], fig["drafts"]["edited"], fig["drafts"]["rejected"]) == (1, 1, 1)
    assert fig["drafts"]["edit_changed_median"] > 0.5 and fig["feedback"]["down"] == 1
    code, out, _ = cli("stats", "--since", "24h")
    assert code == 0 and "approval rate 67%" in out and "too generic" in out

    code, out, _ = cli("gaps", "--json")
    found = json.loads(out)
    signals = {m["ticket_id"]: [s["kind"] for s in m["signals"]] for t in found["topics"] for m in t["tickets"]}
    assert code == 0 and signals == {"KITE-139": ["rewritten"], "KITE-103": ["escalated_no_answer"]}, \
        "KITE-142 went out as written; KITE-103's draft was rejected and the agent handed it over"
    code, out, _ = cli("gaps")
    assert "a lead rewrote most of the draft" in out and "KITE-139" in out and "To do: fix or extend" in out
    assert cli("stats", "--since", "soon")[0] == 2
    assert cli("feedback", "99", "up")[0] == 2


def test_gaps_read_what_a_live_service_stored(db, settings):
    service = RunService(db, settings)
    run_id = service.start("handle KITE-142")
    service.resume(run_id)
    with db.session() as session:
        assert gaps.knowledge_gaps(session, *stats.window(NOW + timedelta(minutes=5), 3600))["topics"] == []


def handed_over(session, ticket: str, reason: str, msgs: list[dict] | None = None) -> Run:
    run = Run(goal=f"handle {ticket}", ticket_id=ticket, status="escalated", messages=msgs or [],
              reason=f"the agent asked for a person: {reason}", created_at=NOW - timedelta(hours=1))
    session.add(run)
    session.flush()
    session.add(Escalation(run_id=run.id, kind="model_request", reason=run.reason))
    return run


def test_a_hand_off_by_policy_is_counted_under_its_reason_not_as_a_missing_article(db):
    with db.session() as session:
        handed_over(session, "KITE-217", "KITE-217 needs a person, not a drafted reply: the customer asks for money "
                                         "back, and refunds are a person's decision.")
        handed_over(session, "KITE-144", "The customer threatens legal action over the outage; a person must answer.",
                    messages("sso outage", HIT))
        handed_over(session, "KITE-139", "Possible security incident: unauthorized logins reported.")
        handed_over(session, "KITE-101", "The help center has nothing on “Refund the VAT on my invoice”, so a person "
                                         "should write this reply.", messages("vat refund invoice", MISS))
    with db.session() as session:
        found = gaps.knowledge_gaps(session, *stats.window(NOW, 30 * 86400))
    in_topics = {m["ticket_id"] for t in found["topics"] for m in t["tickets"]}
    assert in_topics == {"KITE-101"}, "only the ticket the help center could not answer is a gap"
    assert signals_of(found, "KITE-101") == ["escalated_no_answer", "no_help_found"], \
        "a refund's name in a quoted title does not make a missing article a policy hand-off"
    by_reason = {g["reason"]: [t["ticket_id"] for t in g["tickets"]] for g in found["policy"]}
    assert by_reason == {"refund": ["KITE-217"], "legal": ["KITE-144"], "security": ["KITE-139"]}
    [refund] = [g for g in found["policy"] if g["reason"] == "refund"]
    assert "money back" in refund["tickets"][0]["detail"] and refund["label"]


def test_gaps_at_the_terminal_after_a_refund_handed_to_a_person(cli):
    assert cli("run", "handle KITE-217", "--approve", "auto")[0] == 3
    code, out, _ = cli("gaps")
    assert code == 0 and "write an article" not in out, out
    assert "Handed to a person by policy" in out and "KITE-217" in out and "refund" in out.lower()
    code, out, _ = cli("gaps", "--json")
    found = json.loads(out)
    assert found["topics"] == [] and [g["reason"] for g in found["policy"]] == ["refund"]
