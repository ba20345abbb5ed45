"""search_document.vector: a ticket's vector for "tickets like this one" (bot/search/vectors.py); tickets
stored before it have none and are analysed again by the first search that loads them

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-02 05:00:00.000000
"""
import sqlalchemy as sa
from alembic import op

revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('search_document', schema=None) as batch_op:
        batch_op.add_column(sa.Column('vector', sa.LargeBinary(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('search_document', schema=None) as batch_op:
        batch_op.drop_column('vector')
