"""the search's stored analysis: numbered terms and one row per analysed help section or ticket

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02 03:00:00.000000
"""
import sqlalchemy as sa
import sqlmodel
import sqlmodel.sql.sqltypes
from alembic import op

revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('search_term',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('term', sa.Text(), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('term')
    )
    op.create_table('search_document',
    sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('key', sqlmodel.sql.sqltypes.AutoString(length=128), nullable=False),
    sa.Column('source', sa.BigInteger(), nullable=False),
    sa.Column('updated', sa.Float(), nullable=False),
    sa.Column('terms', sa.LargeBinary(), nullable=False),
    sa.Column('tfs', sa.LargeBinary(), nullable=False),
    sa.Column('words', sa.LargeBinary(), nullable=False),
    sa.Column('lengths', sa.LargeBinary(), nullable=False),
    sa.PrimaryKeyConstraint('kind', 'key')
    )


def downgrade() -> None:
    op.drop_table('search_document')
    op.drop_table('search_term')
