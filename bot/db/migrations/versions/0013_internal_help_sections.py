"""help_section.internal: a section whose article is restricted to a user segment (Zendesk) is internal context,
never cited or quoted to a customer

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-03 10:00:00.000000
"""
import sqlalchemy as sa
from alembic import op

revision = '0013'
down_revision = '0012'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # A plain ADD COLUMN: batch mode would rebuild the table on SQLite and lose its desk_change triggers (0006)
    op.add_column('help_section', sa.Column('internal', sa.Boolean(), server_default=sa.false(), nullable=False))


def downgrade() -> None:
    op.execute("ALTER TABLE help_section DROP COLUMN internal")
