-- Total per customer. clean_ordres is a typo of clean_orders.
SELECT customer_id, sum(amount) AS total
FROM clean_ordres
GROUP BY customer_id
