CREATE MATERIALIZED VIEW customer_report AS
SELECT
  id,
  upper(id) AS id_text,
  sqrt(id) AS id_root,
  array_contains(name, 'x') AS has_x,
  year(id) AS id_year,
  date_add(signup, 1.5) AS next_day,
  upper(name, 'x') AS shout,
  if(active, 'yes', 'no') AS active_text,
  size(name) AS name_size
FROM customers;
