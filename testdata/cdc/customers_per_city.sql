-- Live customers per city, from the current-state table.

SELECT city, count(*) AS customers
FROM customers_scd1
GROUP BY city
