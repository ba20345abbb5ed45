"""desk_change: a version per kind of desk document, bumped by triggers when tickets are added or removed and
when help sections change, read by the search index instead of counting the rows; a changed or removed help
section's stored analysis goes with the change

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01 23:00:00.000000
"""
import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None

BUMP = "UPDATE desk_change SET version = version + 1 WHERE kind = '{kind}';"
FORGET = "DELETE FROM search_document WHERE kind = 'help' AND key = OLD.id;"
# Ticket updates (a status change, new tags) leave the set of tickets as it is: the index learns of a ticket's
# changes from its messages and its stored analysis. A help section's text is analysed again once its stored
# analysis is gone.
SQLITE = [
    ("desk_ticket_added", "INSERT", "ticket", BUMP.format(kind="ticket")),
    ("desk_ticket_removed", "DELETE", "ticket", BUMP.format(kind="ticket")),
    ("desk_help_added", "INSERT", "help_section", BUMP.format(kind="help")),
    ("desk_help_changed", "UPDATE", "help_section", FORGET + " " + BUMP.format(kind="help")),
    ("desk_help_removed", "DELETE", "help_section", FORGET + " " + BUMP.format(kind="help")),
]


def upgrade() -> None:
    op.create_table('desk_change',
    sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('version', sa.BigInteger(), nullable=False),
    sa.PrimaryKeyConstraint('kind')
    )
    op.execute("INSERT INTO desk_change (kind, version) VALUES ('ticket', 0), ('help', 0)")
    if op.get_bind().dialect.name != "postgresql":
        for name, event, table, body in SQLITE:  # SQLite has row triggers only
            op.execute(f"CREATE TRIGGER {name} AFTER {event} ON {table} BEGIN {body} END")
        return
    op.execute(f"""
        CREATE FUNCTION desk_tickets_changed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN {BUMP.format(kind="ticket")} RETURN NULL; END $$""")
    op.execute(f"""
        CREATE FUNCTION desk_help_changed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP <> 'INSERT' THEN {FORGET} END IF;
            {BUMP.format(kind="help")}
            RETURN NULL;
        END $$""")
    # once per statement for tickets (a bulk load bumps the version once), once per row for help sections
    op.execute("CREATE TRIGGER desk_tickets_changed AFTER INSERT OR DELETE ON ticket "
               "FOR EACH STATEMENT EXECUTE FUNCTION desk_tickets_changed()")
    op.execute("CREATE TRIGGER desk_help_changed AFTER INSERT OR UPDATE OR DELETE ON help_section "
               "FOR EACH ROW EXECUTE FUNCTION desk_help_changed()")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS desk_tickets_changed ON ticket")
        op.execute("DROP TRIGGER IF EXISTS desk_help_changed ON help_section")
        op.execute("DROP FUNCTION IF EXISTS desk_tickets_changed()")
        op.execute("DROP FUNCTION IF EXISTS desk_help_changed()")
    else:
        for name, _event, _table, _body in SQLITE:
            op.execute(f"DROP TRIGGER IF EXISTS {name}")
    op.drop_table('desk_change')
