"""desk_sync.problem: what stopped the last pass of a part of the sync (the Help Center answering 403 or 404),
as a sentence `kitebase desk status` shows; NULL once that part syncs again

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-03 10:00:00.000000
"""
import sqlalchemy as sa
from alembic import op

revision = '0014'
down_revision = '0013'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('desk_sync', schema=None) as batch_op:
        batch_op.add_column(sa.Column('problem', sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('desk_sync', schema=None) as batch_op:
        batch_op.drop_column('problem')
