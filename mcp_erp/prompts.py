"""Server instructions and tool descriptions: short, since every model call pays for them."""

from __future__ import annotations

SERVER_INSTRUCTIONS = (
    "The company ERP for purchasing: suppliers, parts with contract prices, inventory "
    "warnings, purchase orders. Money is integer minor units (*_minor) plus a display string. "
    "Errors start with a code (VALIDATION, NOT_FOUND, INVALID_TRANSITION, IDEMPOTENCY_CONFLICT, "
    "VERSION_CONFLICT, APPROVAL_REQUIRED, AMBIGUOUS, ERP_UNREACHABLE, ERP_TIMEOUT, ERP_ERROR) "
    "and a sentence."
)

CATEGORY_LIST = (
    "Every part category with its code, Chinese and English names, unit, aliases (the other "
    "names buyers use for it) and part count."
)
SUPPLIER_QUERY = (
    "Find suppliers by fuzzy name (code, Chinese or English), optionally by status; "
    "or one supplier by supplier_id."
)
PART_QUERY = (
    "Parts with their supplier offers (price, MOQ, lead time) and inventory: one by part_id, "
    "or up to 50 in one call by part_ids ({items, missing}); otherwise a page of parts "
    "filtered by name, category and/or supplier_id."
)
PART_SEARCH = (
    "Fuzzy part search in Chinese or English over name, sku, model, brand and category; "
    "best match first."
)
PART_BY_SUPPLIER = (
    "Parts a supplier sells, each with that supplier's offer (price, MOQ, lead time)."
)
ORDER_CREATE = (
    "Create a purchase order: draft, pending_approval when submit is true, approved when "
    "approved_by is given. Same idempotency_key and payload again returns the same order. "
    "Only after the user approved."
)
ORDER_VALIDATE = (
    "Dry-run an order: supplier_id + lines for a new one, or order_id + the change. Returns "
    "violations and warnings (code, message, fix, other suppliers), a priced preview with "
    "totals and the earliest delivery date."
)
ORDER_UPDATE = (
    "Change an order (by id or order_no): status, lines (draft only), expected_date, note, "
    "approved_by, received quantities. expected_version must be its current version. "
    "Only after the user approved."
)
ORDER_SEARCH_DETAILS = (
    "Purchase orders with their lines, requested_by and approved_by, newest first, filtered "
    "by order_no, requester, approver, supplier, part, status and/or order-date range."
)
ORDER_SUMMARY = (
    "Spend over every matching order: totals by currency and order count (cancelled counted "
    "apart), optionally by supplier, requester, approver or month; filter by dates, supplier, "
    "part, category, requester or approver. Use it, not order pages added up."
)
INVENTORY_WARNING = (
    "Parts whose available stock (on hand - reserved) is below safety stock, "
    "largest shortage first."
)
PART_EQUIVALENTS = (
    "Equivalent parts of other brands for a part (id, SKU or model number): match exact or "
    "partial, attributes same and different, stock, valid offers (price, MOQ, lead time); "
    "optional brand filter."
)
