"""channel_reach: the channels the bot cannot post in (not in them, archived...), as rows every process reads, so
a rule whose channel refuses the bot starts no runs and what its threads would show waits (held) until it can

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-08 10:00:00.000000
"""
import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision = '0021'
down_revision = '0020'
branch_labels = None
depends_on = None

S = sqlmodel.sql.sqltypes.AutoString
TIME = sqlmodel.sql.sqltypes.UTCDateTime


def upgrade() -> None:
    op.create_table(
        'channel_reach',
        sa.Column('channel', S(length=64), nullable=False),
        sa.Column('error', S(length=64), nullable=True),
        sa.Column('name', S(length=120), nullable=True),
        sa.Column('updated_at', TIME(), nullable=False),
        sa.PrimaryKeyConstraint('channel'),
    )


def downgrade() -> None:
    op.drop_table('channel_reach')
