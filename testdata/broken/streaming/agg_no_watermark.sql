-- Append mode emits a group only once it is final, which takes a watermark.
-- @kind: streaming_table
SELECT page, count(*) AS views
FROM STREAM(clicks)
GROUP BY page
