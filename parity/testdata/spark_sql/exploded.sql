-- explode in the select list: one row per step.
SELECT id, explode(sequence(1, id % 3 + 1)) AS step
FROM events
