-- The two best-selling products of each category, by revenue.

-- @comment: Two best sellers per category
WITH product_sales AS (
  SELECT
    product_id,
    product_name,
    category,
    sum(quantity) AS units,
    sum(amount) AS revenue
  FROM billable_lines
  GROUP BY product_id, product_name, category
),
ranked AS (
  SELECT
    product_sales.*,
    row_number() OVER (PARTITION BY category ORDER BY revenue DESC, product_id) AS category_rank
  FROM product_sales
)
SELECT category, category_rank, product_id, product_name, units, revenue
FROM ranked
WHERE category_rank <= 2
