"""batch and run.batch_id: one fix for many (the child runs a person starts from an approved reply, decided on
one card)

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-04 23:40:00.000000
"""
import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision = '0017'
down_revision = '0016'
branch_labels = None
depends_on = None

S = sqlmodel.sql.sqltypes.AutoString
TIME = sqlmodel.sql.sqltypes.UTCDateTime


def upgrade() -> None:
    op.create_table(
        'batch',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('parent_run_id', sa.Integer(), nullable=False),
        sa.Column('problem_ticket_id', S(length=32), nullable=False),
        sa.Column('requested_by', S(), nullable=True),
        sa.Column('reference', sa.JSON(), nullable=True),
        sa.Column('skipped', sa.JSON(), nullable=True),
        sa.Column('created_at', TIME(), nullable=False),
        sa.ForeignKeyConstraint(['parent_run_id'], ['run.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('parent_run_id'),
    )
    # plain ALTER TABLE on both databases (a batch copy of `run` on SQLite would rebuild its partial index)
    op.add_column('run', sa.Column('batch_id', sa.Integer(), nullable=True))
    op.create_index('ix_run_batch_id', 'run', ['batch_id'], unique=False)


def downgrade() -> None:
    op.drop_index('ix_run_batch_id', table_name='run')
    op.drop_column('run', 'batch_id')
    op.drop_table('batch')
