-- a reads the seed and c; c reads b, b reads a: a cycle of three.
SELECT id, amount FROM seed
UNION ALL
SELECT id, amount FROM c
