-- A trigger on a batch materialized view has nothing to trigger.
-- @trigger: processing_time '1 minute'
SELECT user_id, name FROM users
