"""what real Zendesk payloads carry: ticket.priority may be NULL (a ticket with no priority set is not "normal"),
ticket_message.attachments (a comment's files as names, types, sizes and links, never their content)

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-03 10:00:00.000000
"""
import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision = '0012'
down_revision = '0011'
branch_labels = None
depends_on = None

# 0006's row triggers on `ticket` (SQLite): a copy of the table loses them, so they are made again
TICKET_TRIGGERS = [
    ("desk_ticket_added", "INSERT"),
    ("desk_ticket_removed", "DELETE"),
]
BUMP = "UPDATE desk_change SET version = version + 1 WHERE kind = 'ticket';"


def upgrade() -> None:
    with op.batch_alter_table('ticket_message', schema=None) as batch_op:
        batch_op.add_column(sa.Column('attachments', sa.JSON(), nullable=True))
    _priority(nullable=True)


def downgrade() -> None:
    op.execute("UPDATE ticket SET priority = 'normal' WHERE priority IS NULL")
    _priority(nullable=False)
    op.execute("ALTER TABLE ticket_message DROP COLUMN attachments")  # plain ALTER: no copy of the table


def _priority(*, nullable: bool) -> None:
    if op.get_bind().dialect.name != "sqlite":
        op.alter_column('ticket', 'priority', existing_type=sqlmodel.sql.sqltypes.AutoString(), nullable=nullable)
        return
    # SQLite changes a column's NOT NULL by copying the table, and dropping the old `ticket` while ticket_message
    # rows point at it breaks their foreign key. So, in this migration's transaction: foreign keys are checked at
    # the commit, the rows wait in a temporary table while the empty table is copied, and they come back before
    # the commit, when every message has its ticket again.
    bind = op.get_bind()
    bind.exec_driver_sql("UPDATE ticket SET id = id WHERE 0")  # pysqlite opens the transaction before a write
    bind.exec_driver_sql("PRAGMA defer_foreign_keys = ON")  # until this transaction ends
    if bind.exec_driver_sql("PRAGMA defer_foreign_keys").scalar() != 1:
        raise RuntimeError("migration 0012 needs a transaction to defer ticket_message's foreign key")
    columns = ", ".join(f'"{c["name"]}"' for c in sa.inspect(bind).get_columns("ticket"))
    bind.exec_driver_sql(f"CREATE TEMP TABLE _ticket_rows AS SELECT {columns} FROM ticket")
    bind.exec_driver_sql("DELETE FROM ticket")
    with op.batch_alter_table('ticket', schema=None, recreate="always") as batch_op:
        batch_op.alter_column('priority', existing_type=sqlmodel.sql.sqltypes.AutoString(), nullable=nullable)
    bind.exec_driver_sql(f"INSERT INTO ticket ({columns}) SELECT {columns} FROM _ticket_rows")
    bind.exec_driver_sql("DROP TABLE _ticket_rows")
    for name, event in TICKET_TRIGGERS:
        bind.exec_driver_sql(f"DROP TRIGGER IF EXISTS {name}")
        bind.exec_driver_sql(f"CREATE TRIGGER {name} AFTER {event} ON ticket BEGIN {BUMP} END")
    bind.exec_driver_sql(BUMP)  # the search index reads the tickets again
