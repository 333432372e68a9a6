-- Indented with tabs; the error is on line 4.
SELECT	region,
		amount
FROM	sales	WHERE	amount > 0	AND	AND	region = 'north'
