"""an index on outbox.kind: re-publishing the App Homes after a run changes looks up its few rows

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01 03:40:00.000000
"""
from alembic import op

revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.create_index('ix_outbox_kind', ['kind'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.drop_index('ix_outbox_kind')
