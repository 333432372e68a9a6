-- Inline events: ids, users, amounts as DECIMAL, timestamps, scores with
-- NULLs, a JSON payload.
SELECT *
FROM (VALUES
  (1, 'u1', 14.50, TIMESTAMP '2025-03-03 07:02:00', 3.5,  'a;b',   '{"a": {"b": 1}, "k": "x"}'),
  (2, 'u2', 11.00, TIMESTAMP '2025-03-03 23:59:59', NULL, 'b',     '{"a": {"b": 2}}'),
  (3, 'u1', 7.25,  TIMESTAMP '2025-02-28 12:30:15', 1.25, 'c;a',   '{"k": "y"}'),
  (4, 'u3', 70.00, TIMESTAMP '2024-12-31 00:00:01', 9.0,  '',      NULL),
  (5, 'u4', 0.10,  TIMESTAMP '2025-01-15 08:45:00', NULL, NULL,    '{"a": {"b": 5}}'),
  (6, 'u2', 19.99, TIMESTAMP '2025-03-01 18:00:00', 2.0,  'a;a;b', '{"a": [1, 2]}')
) AS t(id, user_id, amount, ts, score, tags, payload)
