-- Part of the cycle a -> b -> c -> a.
SELECT id, amount + 1 AS amount FROM b WHERE amount < 1000
