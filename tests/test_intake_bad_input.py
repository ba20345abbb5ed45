"""Bad input to the intake is a sentence (issue 48, item 10): a rules file that is not UTF-8, a cap that is not a
finite amount, and a customer's message longer than a tool result's limit (cut and marked the same way)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import update
from sqlmodel import col

from bot.db.models import Run
from bot.runs.intake.rules import RulesError, parse
from bot.vocabulary import RunStatus
from tests.test_desk_add import SSO, _pass, cli, database, lines  # noqa: F401
from tests.test_zendesk_shapes import zd, zdb  # noqa: F401  (fixtures)


def test_a_rules_file_that_is_not_utf8_is_one_sentence_everywhere(cli: Any, tmp_path: Path,  # noqa: F811
                                                                   capsys: Any) -> None:
    cli.rules.write_bytes('[[rule]]\nname = "caf\u00e9"\nchannel = "C0123ABCD"\n'.encode("latin-1"))
    for command in (["intake", "status"], ["intake", "pause"], ["intake", "check"],
                    ["desk", "add", lines(tmp_path, SSO)]):
        code, out, err = cli(*command)
        assert code == 2, (command, out, err)
        assert "line 2: not UTF-8 text (byte 0xe9)" in err and "Traceback" not in err, (command, err)


@pytest.mark.parametrize("cap", ["nan", "inf", "-inf", "-1.0", "0"])
def test_a_dollar_cap_must_be_a_finite_amount_above_zero(cap: str) -> None:
    with pytest.raises(RulesError, match="max_usd_per_day is an amount in US dollars above 0"):
        parse(f'[[rule]]\nname = "r"\nchannel = "C0123ABCD"\nmax_usd_per_day = {cap}\n')


def test_a_customer_message_longer_than_a_tool_result_is_cut_and_marked(cli: Any, database: Any,  # noqa: F811
                                                                      tmp_path: Path) -> None:
    cli("desk", "add", lines(tmp_path, SSO))
    [run_id] = _pass(cli, database)
    with database.session() as session:
        session.execute(update(Run).where(col(Run.id) == run_id).values(status=RunStatus.COMPLETED))
    huge = "It still loops. " * 3_000  # 48,000 characters: under the desk's own limit, far over a tool result's
    code, out, err = cli("desk", "add", lines(tmp_path, {"ticket_id": "KITE-218", "body": huge}, name="m.jsonl"))
    assert code == 0, err
    assert _pass(cli, database) == [run_id]
    with database.session() as session:
        last = str((session.get(Run, run_id).messages or [])[-1])
    assert "[truncated: 8,000 of 47,999 chars]" in last and "the whole message is on the ticket" in last
    assert len(last) < 12_000


def test_a_rules_file_with_a_byte_order_mark_reads_as_utf8(tmp_path: Path) -> None:
    from bot.runs.intake.rules import load

    path = tmp_path / "rules.toml"
    path.write_bytes(b"\xef\xbb\xbf" + b'[[rule]]\nname = "sso"\nchannel = "C0123ABCD"\n')
    assert [r.name for r in load(path)] == ["sso"]


def test_a_nul_character_in_desk_add_is_a_sentence_naming_its_line_and_nothing_is_added(
        cli: Any, database: Any, tmp_path: Path) -> None:  # noqa: F811
    from tests.test_desk_add import counts

    before = counts(database)
    code, out, err = cli("desk", "add", lines(tmp_path, SSO, {"ticket_id": "KITE-142", "body": "a\u0000b"}))
    assert code == 2 and out == ""
    assert "line 2" in err and "NUL character" in err and "remove it" in err and "try again" not in err
    assert counts(database) == before, "the whole file is refused: nothing half-added"


def test_a_zendesk_comment_with_a_nul_character_is_mirrored_without_it(zdb: Any, zd: Any) -> None:  # noqa: F811
    from bot.desk.zendesk import sync
    from bot.desk.zendesk.desk import client_for
    from tests.test_zendesk_shapes import YEAR, messages, synced

    db, settings = synced(zdb)
    dana = zd.tickets[4821]["requester_id"]
    zd.add_comment(4821, "Still broken\u0000 after the fix.", author_id=dana)
    assert sync.sync(client_for(settings), db, since_seconds=5 * YEAR).caught_up, "the page is written, not stuck"
    assert messages(db, 4821)[-1].body == "Still broken after the fix."
