"""one model budget for all processes: model_budget (the organization's remaining Messages API limits, shared
through the database), step.model (which model answered a turn: a fallback model may answer one)

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-03 14:00:00.000000
"""
import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision = '0010'
down_revision = '0009'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('model_budget',
    sa.Column('key', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('dimensions', sa.JSON(), nullable=True),
    sa.Column('waiters', sa.JSON(), nullable=True),
    sa.Column('as_of', sa.Float(), nullable=False),
    sa.Column('paused_until', sa.Float(), nullable=False),
    sa.PrimaryKeyConstraint('key')
    )
    with op.batch_alter_table('step', schema=None) as batch_op:
        batch_op.add_column(sa.Column('model', sqlmodel.sql.sqltypes.AutoString(), nullable=True))


def downgrade() -> None:
    op.execute("ALTER TABLE step DROP COLUMN model")
    op.drop_table('model_budget')
