"""run.stop_requested_by/at: a person pressed Stop while a worker held the run

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-05 02:30:00.000000
"""
import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision = '0018'
down_revision = '0017'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # plain ALTER TABLE on both databases (a batch copy of `run` on SQLite would rebuild its partial index)
    op.add_column('run', sa.Column('stop_requested_by', sqlmodel.sql.sqltypes.AutoString(), nullable=True))
    op.add_column('run', sa.Column('stop_requested_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))


def downgrade() -> None:
    op.drop_column('run', 'stop_requested_at')
    op.drop_column('run', 'stop_requested_by')
