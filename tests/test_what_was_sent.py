"""What was sent is what is recorded (issue 47): after a person edits a draft, the run's summary, the result the
model reads and the figures describe the edited text that went out, and say who edited it; and the customer's
copy of a reply (what the approval card shows) names a cited section by its title when the desk has no link."""

from __future__ import annotations

import json

from bot.db.models import Outbox
from bot.desk import open_desk
from bot.desk.links import customer_text
from bot.outbox.render import Renderer
from bot.runs.reports import stats
from bot.slack_ui.limits import quote_sections
from bot.vocabulary import OutboxKind
from tests.helpers import approvals_of, run_row, staff_replies

EDIT = ("Hi Siobhán,\n\nPlease try the export again with “Include attachment links” unticked. "
        "[exporting-data#5]\n\nKitebase Support")
TITLE = "“Exporting data › When an export fails”"


def edited_run(db, settings):
    from bot.runs.lifecycle.service import RunService

    service = RunService(db, settings)
    run_id = service.start("handle KITE-131")
    assert service.resume(run_id).status == "awaiting_approval"
    [approval] = approvals_of(db, run_id)
    assert "[exporting-data#1]" in approval.tool_input["message"], "the draft cites a second section"
    assert service.decide(approval.id, action="edit", actor="U0LEAD1", message=EDIT).outcome == "edited"
    state = service.resume(run_id)
    assert state.status == "completed"
    return run_id, state


def card_blocks(renderer, approval_id):
    """The blocks of the approval card the outbox sender would post for this approval."""
    row = Outbox(id=1, key="card:test", kind=OutboxKind.CARD, ref_id=approval_id, channel="C1", thread_ts="1.0", state={}, payload={})
    return renderer(row).calls[0].args["blocks"]


def _reply_result(messages):
    reply = next(b["id"] for m in messages if m["role"] == "assistant" for b in m["content"]
                 if b.get("type") == "tool_use" and b["name"] == "reply_to_customer")
    return next(b for m in messages if m["role"] == "user" and isinstance(m["content"], list)
                for b in m["content"] if b.get("tool_use_id") == reply)


def test_the_summary_and_the_result_describe_the_edited_text_and_who_edited_it(db, settings):
    run_id, state = edited_run(db, settings)
    [line] = [line for line in state.summary.splitlines() if line.startswith("- reply_to_customer")]
    assert "edited by U0LEAD1 before sending" in line and "[exporting-data#5]" in line, line
    assert "exporting-data#1" not in line, "the draft's second citation never reached the customer"
    result = _reply_result(run_row(db, run_id).messages)["content"]
    assert "U0LEAD1 edited your draft" in result and "cites [exporting-data#5]" in result
    assert "[exporting-data#1]" in result and "not sent" in result, "the model is told what its draft lost"


def test_the_figures_count_the_citations_that_were_sent(db, settings):
    edited_run(db, settings)
    with db.session() as session:
        run = run_row(db, 1)
        fig = stats.figures(session, run.created_at.replace(year=2000), run.created_at.replace(year=2100))
    assert fig["drafts"]["edited"] == 1
    assert fig["drafts"]["sent_citations"] == {"exporting-data#5": 1}, "the edit's citations, not the draft's"
    assert fig["drafts"]["sent_uncited"] == 0


def test_without_a_help_center_url_the_customer_reads_the_section_title(db, settings):
    text = customer_text(db, "Untick the box. [exporting-data#5]\n\nYou may also find [exporting-data#1] useful.",
                         lambda row: None)
    assert "[exporting-data#" not in text and "exporting-data#" not in text
    assert f"Untick the box. See {TITLE} in our help center." in text
    assert "You may also find “Exporting data › Export a project to CSV or XLSX” in our help center useful." in text
    mid = customer_text(db, "Untick the box [exporting-data#5].", lambda row: None)
    assert mid == f"Untick the box (see {TITLE} in our help center)."
    linked = customer_text(db, "Untick the box. [exporting-data#5]", lambda row: f"https://help.example/{row.id}")
    assert linked == "Untick the box. https://help.example/exporting-data#5", "with a link the link stays"
    assert customer_text(db, "See [no-such-article#9].", lambda row: None) == "See [no-such-article#9].", \
        "a citation of nothing the desk knows stays as written"


def test_the_embedded_desk_sends_the_titles_and_the_card_shows_exactly_that(db, settings):
    run_id, _ = edited_run(db, settings)
    [sent] = [r.body for r in staff_replies(db, "KITE-131")]
    copy = open_desk(settings, db).customer_text(EDIT)
    assert sent == copy and TITLE in sent and "[exporting-data#5]" not in sent
    [approval] = approvals_of(db, run_id)
    renderer = Renderer(db, settings, permalink=lambda channel, ts: None, streaming=lambda: False)

    shown = json.dumps(card_blocks(renderer, approval.id), ensure_ascii=False)
    assert "Exporting data › When an export fails" in shown, "the card quotes the customer's copy"
    assert "Sources cited" in shown and "exporting-data#5" in shown, "the approver still sees the sources"


def test_a_pending_card_shows_the_customers_copy(db, settings):
    from bot.runs.lifecycle.service import RunService

    service = RunService(db, settings)
    run_id = service.start("handle KITE-131")
    service.resume(run_id)
    [approval] = approvals_of(db, run_id)
    renderer = Renderer(db, settings, permalink=lambda channel, ts: None, streaming=lambda: False)

    blocks = card_blocks(renderer, approval.id)
    quoted = [b for b in blocks if b["type"] == "section" and b["text"]["text"].startswith(">")]
    copy = open_desk(settings, db).customer_text(approval.tool_input["message"])
    assert quoted == quote_sections(copy), "exactly the text the customer will get"
    assert "[exporting-data#" not in copy and "Exporting data › When an export fails" in copy


def test_the_internal_note_and_the_report_describe_the_sent_text(db, settings):
    """The offline model's internal note on the ticket and its final report name what went out (the edit's one
    citation, and who edited it), not what its draft cited."""
    from sqlmodel import select

    from bot.db.models import TicketMessage

    run_id, state = edited_run(db, settings)
    with db.session() as session:
        notes = [m.body for m in session.exec(select(TicketMessage).where(TicketMessage.ticket_id == "KITE-131",
                                                                         TicketMessage.role == "internal")).all()]
    note = [n for n in notes if n.startswith("Agent replied")]
    assert note, notes
    assert "[exporting-data#5]" in note[-1] and "exporting-data#1" not in note[-1], note[-1]
    assert "edited by U0LEAD1 before sending" in note[-1]
    first = state.answer.splitlines()[0]
    assert "edited by U0LEAD1 before sending" in first and "[exporting-data#5]" in first, first
    assert "exporting-data#1" not in first, first


def test_the_batch_card_shows_each_draft_as_its_customer_reads_it(db, settings):
    """The batch card compares each child's draft with the approved reference, both in the customer's copy (a
    cited section by its title here), as the approval card shows a draft."""
    renderer = Renderer(db, settings, permalink=lambda channel, ts: None, streaming=lambda: False)
    view = {"reference": {"message": "Use the bypass link. [account-recovery#2]"},
            "children": [{"approval": {"message": "Hi Marcus, use the bypass link. [account-recovery#2]"}},
                         {"approval": None}]}
    renderer._customer_copies(view)
    assert view["reference"]["message"] == \
        "Use the bypass link. See “Account recovery › Locked out of your account” in our help center."
    assert view["children"][0]["approval"]["message"].startswith("Hi Marcus, use the bypass link. See “Account")
