"""What is due: a ticket's reply target and breach time (sla, due_at), the customer's tier, an intake run's triage
and the breach of a ticket whose draft waited, the near-breach reminder of a draft, and an arrival started past
its rule's hourly cap because it was due soon (issue 49)

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-07 05:00:00.000000
"""
import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision = '0022'
down_revision = '0021'
branch_labels = None
depends_on = None

S = sqlmodel.sql.sqltypes.AutoString
TIME = sqlmodel.sql.sqltypes.UTCDateTime


def upgrade() -> None:
    # plain ALTER TABLE on both databases (as 0016): a batch copy of `ticket` or `run` on SQLite would trip their
    # foreign keys and drop triggers; SQLite 3.35+ drops a column in place too
    op.add_column('customer', sa.Column('tier', S(length=64), nullable=True))
    op.add_column('ticket', sa.Column('sla', sa.JSON(), nullable=True))
    op.add_column('ticket', sa.Column('due_at', TIME(), nullable=True))
    op.create_index('ix_ticket_due_at', 'ticket', ['due_at'], unique=False)
    op.create_index('ix_ticket_created_at', 'ticket', ['created_at'], unique=False)  # the first-reply figures
    op.add_column('run', sa.Column('triage', sa.JSON(), nullable=True))
    op.add_column('run', sa.Column('breached_at', TIME(), nullable=True))
    op.add_column('approval', sa.Column('due_reminded_at', TIME(), nullable=True))
    op.add_column('desk_arrival', sa.Column('past_cap', sa.Boolean(), server_default=sa.false(), nullable=False))


def downgrade() -> None:
    op.drop_column('desk_arrival', 'past_cap')
    op.drop_column('approval', 'due_reminded_at')
    op.drop_column('run', 'breached_at')
    op.drop_column('run', 'triage')
    op.drop_index('ix_ticket_created_at', table_name='ticket')
    op.drop_index('ix_ticket_due_at', table_name='ticket')
    op.drop_column('ticket', 'due_at')
    op.drop_column('ticket', 'sla')
    op.drop_column('customer', 'tier')
