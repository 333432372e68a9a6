-- Customer names; reports.sql defines a dataset of the same name.
SELECT customer_id, name FROM customers
