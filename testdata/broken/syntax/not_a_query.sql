-- A pragma-form body must be a query, not a DML statement.
DELETE FROM orders WHERE amount < 0
