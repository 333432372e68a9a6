-- Declared column lists are the datasets' schemas (docs/format.md §2b).

-- Fits: the table takes the declared order, and the DECIMAL widens.
CREATE MATERIALIZED VIEW prices (sku STRING NOT NULL, price DECIMAL(20, 2) COMMENT 'in EUR')
AS SELECT CAST(9.5 AS DECIMAL(10, 2)) AS price, 'A-1' AS sku;

-- 1 is an INT, not a BIGINT: Spark does not cast.
CREATE MATERIALIZED VIEW counts (n BIGINT) AS SELECT 1 AS n;

-- A query column the list does not declare.
CREATE MATERIALIZED VIEW labels (id INT) AS SELECT 1 AS id, 'x' AS label;

-- NULL into a NOT NULL column.
CREATE MATERIALIZED VIEW required (id INT NOT NULL) AS SELECT CAST(NULL AS INT) AS id;

-- A reader sees the declared columns.
CREATE MATERIALIZED VIEW price_list AS SELECT sku, price FROM prices;
