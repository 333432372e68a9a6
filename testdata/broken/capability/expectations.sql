-- Expectations run natively only.
-- @expect.positive_amount: amount > 0 ON VIOLATION DROP ROW
SELECT payment_id, account_id, amount FROM payments
