"""document changed date

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-27 08:10:00
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel
from alembic import op


revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table('document', schema=None) as batch_op:
        batch_op.add_column(sa.Column('changed', sqlmodel.sql.sqltypes.AutoString(length=10), nullable=False,
                                      server_default=""))


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table('document', schema=None) as batch_op:
        batch_op.drop_column('changed')
