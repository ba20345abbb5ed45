"""a real desk: desk_sync (the Zendesk export's cursor, stored with each page), desk_write (writes to the desk,
sent exactly once by the desk's sender), help_section.url (the link a customer gets for a cited section), ticket.requester (a real desk's requester)

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-03 10:30:00.000000
"""
import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('desk_sync',
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
    sa.Column('cursor', sa.Text(), nullable=True),
    sa.Column('synced_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.Column('pages', sa.Integer(), nullable=False),
    sa.Column('tickets', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('name')
    )
    op.create_table('desk_write',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('key', sqlmodel.sql.sqltypes.AutoString(length=200), nullable=True),
    sa.Column('ticket_id', sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
    sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('body', sa.Text(), nullable=True),
    sa.Column('public', sa.Boolean(), nullable=False),
    sa.Column('fields', sa.JSON(), nullable=True),
    sa.Column('run_id', sa.Integer(), nullable=True),
    sa.Column('tool_use_id', sqlmodel.sql.sqltypes.AutoString(length=128), nullable=True),
    sa.Column('status', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('attempts', sa.Integer(), nullable=False),
    sa.Column('next_attempt_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('claimed_until', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.Column('first_tried_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.Column('last_error', sa.Text(), nullable=True),
    sa.Column('comment_id', sa.BigInteger(), nullable=True),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('sent_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('key')
    )
    with op.batch_alter_table('desk_write', schema=None) as batch_op:
        batch_op.create_index('ix_desk_write_due', ['status', 'next_attempt_at'], unique=False)
        batch_op.create_index(batch_op.f('ix_desk_write_ticket_id'), ['ticket_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_desk_write_run_id'), ['run_id'], unique=False)
    with op.batch_alter_table('help_section', schema=None) as batch_op:
        batch_op.add_column(sa.Column('url', sa.Text(), nullable=True))
    with op.batch_alter_table('ticket', schema=None) as batch_op:
        batch_op.add_column(sa.Column('requester', sqlmodel.sql.sqltypes.AutoString(), nullable=True))


def downgrade() -> None:
    # a plain ALTER (SQLite 3.35+ and PostgreSQL): a batch copy of `ticket` would trip ticket_message's foreign key
    op.execute("ALTER TABLE ticket DROP COLUMN requester")
    with op.batch_alter_table('help_section', schema=None) as batch_op:
        batch_op.drop_column('url')
    op.drop_table('desk_write')
    op.drop_table('desk_sync')
