-- A streaming table whose flow reads no stream.
-- @kind: streaming_table
SELECT user_id, name FROM users
