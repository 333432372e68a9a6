-- Not in a cycle itself, but reads one: no cycle diagnostic here.
SELECT count(*) AS n, sum(amount) AS total FROM b
