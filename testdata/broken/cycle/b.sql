-- Part of the cycle a -> b -> c -> a.
SELECT id, amount * 2 AS amount FROM a
