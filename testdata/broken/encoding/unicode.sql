-- Non-ASCII names and text. `café_sales` and `café_totals` are valid; the
-- last statement has an error after non-ASCII text on the same line.

CREATE MATERIALIZED VIEW `café_sales` AS
SELECT region, amount FROM sales WHERE region <> 'Île-de-France';

CREATE MATERIALIZED VIEW `café_totals` AS
SELECT count(*) AS n, sum(amount) AS total FROM `café_sales`;

CREATE MATERIALIZED VIEW ile_de_france AS
SELECT /* 🚀 région */ region, amount FROM sales WHERE region = 'Île-de-France' AND AND amount > 0;
