-- A dataset that reads itself.
SELECT id, amount + 1 AS amount FROM self_ref
