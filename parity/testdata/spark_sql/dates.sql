-- Date and time functions with Spark's meaning.
SELECT
  id,
  date_format(ts, 'yyyy-MM-dd HH:mm') AS minute_text,
  date_format(ts, 'dd/MM/yy') AS short_date,
  to_date(ts) AS day,
  to_date('03/03/2025', 'MM/dd/yyyy') AS parsed_day,
  to_timestamp('2025-03-03 07:02:00') AS parsed_ts,
  unix_timestamp(ts) AS epoch_s,
  from_unixtime(unix_timestamp(ts)) AS epoch_text,
  datediff(DATE '2025-03-10', to_date(ts)) AS days_to_10th,
  date_add(to_date(ts), 3) AS plus_3,
  date_sub(to_date(ts), 1) AS minus_1,
  add_months(to_date(ts), 1) AS next_month,
  last_day(to_date(ts)) AS month_end,
  date_trunc('HOUR', ts) AS hour_start,
  date_trunc('MONTH', ts) AS month_start,
  timestamp_seconds(1700000000 + id) AS from_seconds,
  unix_date(to_date(ts)) AS unix_day,
  date_from_unix_date(20000 + id) AS from_unix_day,
  year(ts) AS y, month(ts) AS m, dayofmonth(ts) AS d, quarter(ts) AS q,
  weekofyear(ts) AS week, hour(ts) AS h, minute(ts) AS mi, second(ts) AS s
FROM events
