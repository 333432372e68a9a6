-- Windows line endings; the error is on line 3.
SELECT region, amount
FROM sales WHERE region = 'north' AND AND amount > 0
