-- A sink: Spark 4.1 cannot define one from SQL.
-- @kind: sink
SELECT event_id, account_id, status FROM STREAM(events)
