"""The offline model reads the customer's words (bot/agent/offline.py, offline_parts.py): help that assumes what
the customer says they don't use is left out (another section, another paragraph of it, or none), and a reply
the ticket already holds is not sent a second time: the ticket goes to a person, with why."""

from __future__ import annotations

from typing import Any

import pytest

from bot.agent.offline_parts import fitting, not_used
from bot.config import Settings
from bot.db.engine import Database, create_schema
from bot.db.models import id_of
from bot.db.seed import seed_desk
from bot.desk import embedded_add
from bot.runs.lifecycle.service import RunService
from tests.helpers import approvals_of, escalations_of, staff_replies


@pytest.fixture
def desk(tmp_path):
    url = f"sqlite:///{tmp_path / 'desk.db'}"
    settings = Settings(database_url=url)
    db = Database.from_url(url)
    create_schema(db.engine)
    seed_desk(db, settings.data_dir)
    yield db, RunService(db, settings)
    db.engine.dispose()


def work(db: Database, service: RunService, request: str) -> tuple[int, Any, str | None]:
    """Start a run and resume it to its first stop: (its id, its state, the draft it asks to send, if any)."""
    run_id = service.start(request)
    state = service.resume(run_id)
    waiting = approvals_of(db, run_id)
    return run_id, state, ((waiting[0].tool_input or {})["message"] if waiting else None)


def approve(db: Database, service: RunService, run_id: int) -> Any:
    [approval] = approvals_of(db, run_id)
    service.decide(id_of(approval), action="approve", actor="test-lead")
    return service.resume(run_id)


def customer_writes(db: Database, ticket_id: str, body: str, author: str | None = None) -> None:
    """A customer's message on the ticket, as `kitebase desk add` adds it."""
    embedded_add.add(db, [embedded_add.NewMessage(1, ticket_id, body, author)], arrivals=False)


# --- (a) the customer's words rule help out ------------------------------------------------------------------

def test_a_customer_without_single_sign_on_gets_no_sso_steps(desk):
    db, service = desk
    _, state, draft = work(db, service, "handle KITE-153")  # "We don't use any single sign-on, just email …"
    assert state.status == "awaiting_approval" and draft is not None
    assert "continue with sso" not in draft.lower() and "bypass link" not in draft.lower()
    assert "identity provider" not in draft.lower()
    assert "30 minutes" in draft and "[account-recovery#2]" in draft, "the section's paragraph for them instead"


def test_saying_so_in_a_later_message_counts_too(desk):
    db, service = desk
    [added] = embedded_add.add(db, [embedded_add.NewTicket(
        1, "lumen-civic", "Locked out after too many password attempts",
        "I mistyped my password a few times and now my account is temporarily locked.", ("login",), "high")],
        arrivals=False).added
    customer_writes(db, added.ticket_id, "Forgot to say: we're not using SSO, everyone signs in with a password.")
    _, state, draft = work(db, service, f"handle {added.ticket_id}")
    assert draft is not None and "continue with sso" not in draft.lower() and "30 minutes" in draft


def test_when_every_section_assumes_it_the_ticket_goes_to_a_person(desk):
    db, service = desk
    [added] = embedded_add.add(db, [embedded_add.NewTicket(
        1, "paperkite-coffee", "Single sign-on sign-in loop with Okta",
        "We get a sign-in loop. To be clear we're not using SSO or Okta at all, just passwords.", ("login",),
        "normal")], arrivals=False).added
    _, state, draft = work(db, service, f"handle {added.ticket_id}")
    assert draft is None and state.status == "escalated"
    assert "which the customer says they don't have or use" in state.reason and "assume" in state.reason


@pytest.mark.parametrize("text, said", [
    ("We don't use any single sign-on, just email and password.", ["single sign-on"]),
    ("we're not using Okta anymore", ["Okta"]),
    ("We have no SSO.", ["SSO"]),
    ("no SSO here", ["SSO"]),
    ("We sign in without SSO", ["SSO"]),
    ("I don't have backup codes.", ["backup codes"]),
    ("We don't have SSO enabled", ["SSO"]),
    ("We do not use the Slack integration at all", ["Slack integration"]),
    # not statements about what they use:
    ("No email, not in spam either.", []),
    ("Without attachment links it works.", []),
    ("It says 'You don't have access to any projects yet'.", []),
    ("I can't sign in and it's not working.", []),
    ("The page returns with no error.", []),
])
def test_what_a_customer_says_they_do_not_use(text, said):
    assert not_used(text) == said


def test_a_section_is_cut_to_the_paragraphs_written_for_the_customer():
    section = {"id": "account-recovery#2", "heading": "Locked out of your account", "article": "Account recovery",
               "body": "If your workspace uses single sign-on, click \"Continue with SSO\". Ask your IdP admin.\n\n"
                       "If your workspace doesn't use SSO, wait 30 minutes for the lock to expire."}
    sso = {"id": "single-sign-on#1", "heading": "Set up SSO with Okta", "article": "Single sign-on (SSO)",
           "body": "Open Settings and paste the metadata."}
    other = {"id": "security-settings#3", "heading": "Password requirements", "article": "Security settings",
             "body": "Passwords need 12 characters."}
    ticket = {"conversation": [{"role": "customer", "body": "We don't use single sign-on."},
                               {"role": "staff", "body": "Do you use SSO? Continue with SSO."}]}
    kept, ruled = fitting([section, sso, other], ticket)
    assert [s["id"] for s in kept] == ["account-recovery#2", "security-settings#3"] and ruled == ["single sign-on"]
    assert kept[0]["body"] == "If your workspace doesn't use SSO, wait 30 minutes for the lock to expire."
    assert fitting([section], {"conversation": [{"role": "staff", "body": "We don't use SSO."}]}) == ([section], []), \
        "only the customer's own words count"


# --- (b) a reply the customer already has is not sent again --------------------------------------------------

def test_a_reply_the_customer_already_has_is_not_sent_again(desk):
    db, service = desk
    first, _, draft = work(db, service, "handle KITE-142, and tell me if other customers have hit the same problem")
    assert draft is not None and "[account-recovery#2]" in draft, "a person's earlier reply is not the agent's"
    assert approve(db, service, first).status == "completed"
    sent = len(staff_replies(db, "KITE-142"))
    customer_writes(db, "KITE-142", "The bypass link expired before I could use it.", "Dana Whitfield")

    run_id, again, second = work(db, service, "handle KITE-142")
    assert second is None and again.status == "escalated", "the same reply is not drafted again"
    assert "already has this answer" in again.reason and "[account-recovery#2]" in again.reason
    assert "The bypass link expired before I could use it." in again.reason and "a person should look" in again.reason
    assert [e.kind for e in escalations_of(db, run_id)] == ["model_request"]
    assert len(staff_replies(db, "KITE-142")) == sent


def test_asking_twice_without_news_does_not_send_it_twice(desk):
    db, service = desk
    first, _, _ = work(db, service, "handle KITE-155")
    approve(db, service, first)
    _, again, second = work(db, service, "handle KITE-155")
    assert second is None and again.status == "escalated"
    assert "already has this answer" in again.reason and "sending the same reply again would not help" in again.reason


def test_a_persons_own_words_on_the_same_topic_do_not_stop_a_draft(desk):
    db, service = desk  # KITE-163's staff reply gives the bypass steps in a person's own words
    _, state, draft = work(db, service, "handle KITE-163")
    assert state.status == "awaiting_approval" and draft is not None
