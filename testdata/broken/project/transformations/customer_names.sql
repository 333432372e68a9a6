-- Reads customers, whose sample path in thund.yaml leaves the project.
SELECT customer_id, name FROM customers
