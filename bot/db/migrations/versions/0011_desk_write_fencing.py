"""fenced desk writes: desk_write.claimed_by (the claim's owner, a token every later change of the row is
conditional on) and desk_write.zendesk_since (Zendesk's own time when the write was first tried, the lower
bound of the look-up for a comment an earlier attempt may have posted)

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-03 18:00:00.000000
"""
import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision = '0011'
down_revision = '0010'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('desk_write', schema=None) as batch_op:
        batch_op.add_column(sa.Column('claimed_by', sqlmodel.sql.sqltypes.AutoString(length=120), nullable=True))
        batch_op.add_column(sa.Column('zendesk_since', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('desk_write', schema=None) as batch_op:
        batch_op.drop_column('zendesk_since')
        batch_op.drop_column('claimed_by')
