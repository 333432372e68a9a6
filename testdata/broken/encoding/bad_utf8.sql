-- Sales per region, café included (saved as Latin-1).
SELECT region, sum(amount) AS total FROM sales GROUP BY region
