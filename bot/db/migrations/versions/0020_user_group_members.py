"""user_group and user_group_member: who belongs to the approvers' Slack user groups, as rows every process reads
(the Slack side's timer writes them; the rule in bot/runs/lifecycle/people.py reads them)

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-06 10:00:00.000000
"""
import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision = '0020'
down_revision = '0019'
branch_labels = None
depends_on = None

S = sqlmodel.sql.sqltypes.AutoString
TIME = sqlmodel.sql.sqltypes.UTCDateTime


def upgrade() -> None:
    op.create_table(
        'user_group',
        sa.Column('id', S(length=32), nullable=False),
        sa.Column('refreshed_at', TIME(), nullable=False),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_table(
        'user_group_member',
        sa.Column('group_id', S(length=32), nullable=False),
        sa.Column('user_id', S(length=32), nullable=False),
        sa.Column('refreshed_at', TIME(), nullable=False),
        sa.ForeignKeyConstraint(['group_id'], ['user_group.id']),
        sa.PrimaryKeyConstraint('group_id', 'user_id'),
    )


def downgrade() -> None:
    op.drop_table('user_group_member')
    op.drop_table('user_group')
