"""ticket.type and ticket.problem_id: a problem ticket and its incidents (one fix for many), as Zendesk has them
and as the embedded desk keeps them; desk_write.waits_for: an incident's link is sent after its problem's

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-04 21:00:00.000000
"""
import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision = '0016'
down_revision = '0015'
branch_labels = None
depends_on = None

S = sqlmodel.sql.sqltypes.AutoString


def upgrade() -> None:
    # plain ALTER TABLE on both databases: on SQLite a batch copy of `ticket` would drop 0006's triggers
    op.add_column('ticket', sa.Column('type', S(length=16), nullable=True))
    op.add_column('ticket', sa.Column('problem_id', S(length=32), nullable=True))
    op.create_index('ix_ticket_problem_id', 'ticket', ['problem_id'], unique=False)
    op.add_column('desk_write', sa.Column('waits_for', sa.Integer(), nullable=True))


def downgrade() -> None:
    op.drop_column('desk_write', 'waits_for')  # SQLite 3.35+ drops a column in place, triggers kept
    op.drop_index('ix_ticket_problem_id', table_name='ticket')
    op.drop_column('ticket', 'problem_id')
    op.drop_column('ticket', 'type')
