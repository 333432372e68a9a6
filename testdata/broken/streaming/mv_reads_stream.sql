-- A materialized view is recomputed from whole inputs; it cannot read a stream.
CREATE MATERIALIZED VIEW recent_clicks AS
SELECT user_id, page FROM STREAM(clicks);
