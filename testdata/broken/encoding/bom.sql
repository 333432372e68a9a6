SELECT region, sum(amount AS total FROM sales GROUP BY region
-- The file starts with a UTF-8 byte order mark; the error is on line 1.
