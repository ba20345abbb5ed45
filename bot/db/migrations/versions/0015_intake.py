"""desk_arrival and intake_rule: what arrives on the desk (a new ticket, a customer's new message), recorded once
with the mirror's write, and the standing of each intake rule (in force since, paused, last backlog notice)

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-03 22:00:00.000000
"""
import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision = '0015'
down_revision = '0014'
branch_labels = None
depends_on = None

S = sqlmodel.sql.sqltypes.AutoString
TIME = sqlmodel.sql.sqltypes.UTCDateTime


def upgrade() -> None:
    op.create_table(
        'desk_arrival',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('key', S(length=200), nullable=False),
        sa.Column('kind', S(length=16), nullable=False),
        sa.Column('ticket_id', S(length=32), nullable=False),
        sa.Column('fields', sa.JSON(), nullable=True),
        sa.Column('body', sa.Text(), nullable=True),
        sa.Column('author', S(length=200), nullable=True),
        sa.Column('state', S(length=16), nullable=False),
        sa.Column('rule', S(length=64), nullable=True),
        sa.Column('reason', sa.Text(), nullable=True),
        sa.Column('run_id', sa.Integer(), nullable=True),
        sa.Column('created_at', TIME(), nullable=False),
        sa.Column('decided_at', TIME(), nullable=True),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('key'),
    )
    op.create_index('ix_desk_arrival_open', 'desk_arrival', ['state', 'id'])
    op.create_index('ix_desk_arrival_ticket_id', 'desk_arrival', ['ticket_id'])
    op.create_index('ix_desk_arrival_rule', 'desk_arrival', ['rule'])
    op.create_table(
        'intake_rule',
        sa.Column('name', S(length=64), nullable=False),
        sa.Column('since', TIME(), nullable=False),
        sa.Column('paused', sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column('paused_by', S(length=64), nullable=True),
        sa.Column('noticed_at', TIME(), nullable=True),
        sa.PrimaryKeyConstraint('name'),
    )


def downgrade() -> None:
    op.drop_table('intake_rule')
    op.drop_index('ix_desk_arrival_rule', table_name='desk_arrival')
    op.drop_index('ix_desk_arrival_ticket_id', table_name='desk_arrival')
    op.drop_index('ix_desk_arrival_open', table_name='desk_arrival')
    op.drop_table('desk_arrival')
