-- Numbers, arrays and JSON, row by row.
SELECT
  id,
  pmod(id - 4, 3) AS positive_mod,
  round(amount * 1.1, 2) AS with_tax,
  ceil(amount) AS amount_ceil,
  floor(amount) AS amount_floor,
  abs(amount - 15) AS distance_from_15,
  sign(amount - 15) AS above_15,
  power(id, 2) AS squared,
  amount / 3 AS third,
  id % 4 AS mod_4,
  greatest(id, 3) AS at_least_3,
  sequence(1, id % 3 + 1) AS steps,
  size(sequence(1, id)) AS step_count,
  arrays_overlap(sequence(1, id), sequence(4, 6)) AS reaches_4,
  array_contains(sequence(1, id), 2) AS has_2,
  get_json_object(payload, '$.a.b') AS json_ab,
  get_json_object(payload, '$.k') AS json_k,
  CASE WHEN score > 3 THEN 'high' WHEN score IS NULL THEN 'none' ELSE 'low' END AS band
FROM events
