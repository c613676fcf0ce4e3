"""Reads of the audit log; :mod:`sim.erp.orders` writes it in each change's transaction."""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, func, select

from sim.erp.db import Database
from sim.erp.models import AuditLog
from sim.erp.views import audit_view, paged


def entries(
    db: Database, entity: str | None, entity_id: int | None, page: int, size: int
) -> dict[str, Any]:
    """A page of audit entries, newest first."""
    conditions: list[ColumnElement[bool]] = []
    if entity:
        conditions.append(AuditLog.entity == entity)
    if entity_id is not None:
        conditions.append(AuditLog.entity_id == entity_id)
    with db.read() as session:
        total = session.scalar(select(func.count()).select_from(AuditLog).where(*conditions)) or 0
        rows = session.scalars(
            select(AuditLog)
            .where(*conditions)
            .order_by(AuditLog.id.desc())
            .offset((page - 1) * size)
            .limit(size)
        ).all()
        return paged([audit_view(r) for r in rows], total, page, size)
