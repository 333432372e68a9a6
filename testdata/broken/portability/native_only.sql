-- @backends: native
-- Restricted to native, so its DuckDB functions are fine.
SELECT event_id, strftime(ts, '%H:%M') AS hhmm FROM events
