-- Two streams joined with no watermark on either side: the join state
-- would grow without bound.
-- @kind: streaming_table
SELECT c.user_id, c.ad_id, i.shown_at, c.event_time AS clicked_at
FROM STREAM(clicks) AS c
JOIN STREAM(impressions) AS i
  ON i.ad_id = c.ad_id AND i.user_id = c.user_id
