--- Errors (spec §4 rule 9, spec §7, DESIGN §4 and §5): parse errors are ERR_SQL_SYNTAX with the
--- line and column in the message and in the details; an unknown collection is
--- ERR_COLLECTION_NOT_FOUND naming it and the known collections (never an empty result) in
--- SELECT, UPDATE, DELETE, CREATE INDEX, DROP INDEX and JOIN alike; placeholders and parameters
--- must match in number (ERR_SQL_PARAM). Other topic files hold the errors of their statements.

-- case: an unknown collection before any exists
SELECT * FROM orders
-- error: ERR_COLLECTION_NOT_FOUND unknown collection 'orders' (there are no collections yet)

-- setup
INSERT INTO alpha VALUES {"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","a":1,"tags":["x"]}
INSERT INTO beta VALUES {"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","a":1}

-- case: unknown collection in SELECT names the known ones
SELECT * FROM orders
-- error: ERR_COLLECTION_NOT_FOUND unknown collection 'orders' (known: alpha, beta)

-- case: unknown collection in SELECT keeps the name as written
SELECT * FROM Orders WHERE a = 1
-- error: ERR_COLLECTION_NOT_FOUND unknown collection 'Orders' (known: alpha, beta)

-- case: unknown collection in UPDATE
UPDATE orders SET a = 2 WHERE a = 1
-- error: ERR_COLLECTION_NOT_FOUND unknown collection 'orders' (known: alpha, beta)

-- case: unknown collection in DELETE
DELETE FROM orders
-- error: ERR_COLLECTION_NOT_FOUND unknown collection 'orders' (known: alpha, beta)

-- case: unknown collection in CREATE INDEX
CREATE INDEX idx_a ON orders (a)
-- error: ERR_COLLECTION_NOT_FOUND unknown collection 'orders' (known: alpha, beta)

-- case: unknown collection in DROP INDEX
DROP INDEX idx_a ON orders
-- error: ERR_COLLECTION_NOT_FOUND unknown collection 'orders' (known: alpha, beta)

-- case: unknown collection in JOIN
SELECT * FROM alpha JOIN orders ON alpha.a = orders.a
-- error: ERR_COLLECTION_NOT_FOUND unknown collection 'orders' (known: alpha, beta)

-- case: unknown collection in a second JOIN
SELECT * FROM alpha JOIN beta ON alpha.a = beta.a JOIN orders ON beta.a = orders.a
-- error: ERR_COLLECTION_NOT_FOUND unknown collection 'orders' (known: alpha, beta)

-- case: an unknown FROM collection is reported even when WHERE matches nothing anyway
SELECT * FROM orders WHERE 1 = 2
-- error: ERR_COLLECTION_NOT_FOUND unknown collection 'orders'

-- case: a collection name outside the naming rules
SELECT * FROM bad$name
-- error: ERR_COLLECTION_NAME_INVALID collection name 'bad$name' contains '$'

--- The known-names list shows 20 names, then "+N more".
-- setup
INSERT INTO c01 VALUES {"x":1}
INSERT INTO c02 VALUES {"x":1}
INSERT INTO c03 VALUES {"x":1}
INSERT INTO c04 VALUES {"x":1}
INSERT INTO c05 VALUES {"x":1}
INSERT INTO c06 VALUES {"x":1}
INSERT INTO c07 VALUES {"x":1}
INSERT INTO c08 VALUES {"x":1}
INSERT INTO c09 VALUES {"x":1}
INSERT INTO c10 VALUES {"x":1}
INSERT INTO c11 VALUES {"x":1}
INSERT INTO c12 VALUES {"x":1}
INSERT INTO c13 VALUES {"x":1}
INSERT INTO c14 VALUES {"x":1}
INSERT INTO c15 VALUES {"x":1}
INSERT INTO c16 VALUES {"x":1}
INSERT INTO c17 VALUES {"x":1}
INSERT INTO c18 VALUES {"x":1}
INSERT INTO c19 VALUES {"x":1}
INSERT INTO c20 VALUES {"x":1}

-- case: with 22 collections the message lists the first 20 and counts the rest
SELECT * FROM orders
-- error: ERR_COLLECTION_NOT_FOUND unknown collection 'orders' (known: alpha, beta, c01, c02, c03, c04, c05, c06, c07, c08, c09, c10, c11, c12, c13, c14, c15, c16, c17, c18 +2 more)

-- case: not a statement: a word a typo from a keyword suggests it
SELEC * FROM alpha
-- error: ERR_SQL_SYNTAX expected a statement (SELECT, INSERT, UPDATE, DELETE, CREATE INDEX or DROP INDEX), found 'SELEC' (did you mean SELECT?) at 1:1

-- case: an empty statement
;
-- error: ERR_SQL_SYNTAX expected a statement (SELECT, INSERT, UPDATE, DELETE, CREATE INDEX or DROP INDEX), found ';' at 1:1

-- case: a misspelt keyword, with its line and column, and the keyword it is nearest
SELECT * FORM alpha
-- error: ERR_SQL_SYNTAX expected FROM after the select list, found 'FORM' (did you mean FROM?) at 1:10

-- case: a misspelt keyword after a complete statement suggests the keyword too
SELECT * FROM alpha WHERE a = 1 ORDR BY a
-- error: ERR_SQL_SYNTAX expected the end of the statement, found 'ORDR' (did you mean ORDER?) at 1:33

-- case: a word far from every keyword gets no suggestion
SELECT * FROM alpha WHERE a = 1 banana
-- error: ERR_SQL_SYNTAX expected the end of the statement, found 'banana' at 1:33

-- case: the position of an error on the third line
SELECT a
FROM alpha
WHERE a =
-- error: ERR_SQL_SYNTAX expected a value after =, found end of input at 3:10

-- case: the position of an error on the second line, after indentation
SELECT a FROM alpha
    WHERE a = 1 AND AND a = 2
-- error: ERR_SQL_SYNTAX found 'AND' at 2:21

-- case: trailing tokens after a complete statement
SELECT * FROM alpha WHERE a = 1 extra
-- error: ERR_SQL_SYNTAX expected the end of the statement, found 'extra' at 1:33

-- case: tokens after the trailing semicolon
SELECT * FROM alpha; SELECT * FROM beta
-- error: ERR_SQL_SYNTAX expected the end of the statement, found 'SELECT' at 1:22

-- case: two semicolons
SELECT * FROM alpha;;
-- error: ERR_SQL_SYNTAX expected the end of the statement, found ';' at 1:21

-- case: an empty IN list
SELECT * FROM alpha WHERE a IN ()
-- error: ERR_SQL_SYNTAX IN needs at least one value; an empty list is not allowed, found ')' at 1:33

-- case: [*] in WHERE
SELECT * FROM alpha WHERE tags[*] = 'x'
-- error: ERR_SQL_SYNTAX invalid JSON path 'tags[*]': [*] is only allowed in index definitions; name a position such as [0] at 1:27

-- case: [*] in ORDER BY
SELECT * FROM alpha ORDER BY tags[*]
-- error: ERR_SQL_SYNTAX [*] is only allowed in index definitions; name a position such as [0] at 1:30

-- case: [*] in GROUP BY
SELECT COUNT(*) FROM alpha GROUP BY tags[*]
-- error: ERR_SQL_SYNTAX [*] is only allowed in index definitions; name a position such as [0] at 1:37

-- case: an unterminated string
SELECT * FROM alpha WHERE a = 'abc
-- error: ERR_SQL_SYNTAX unterminated string literal at 1:31

-- case: an unterminated quoted identifier
SELECT * FROM alpha WHERE "a = 1
-- error: ERR_SQL_SYNTAX unterminated quoted identifier at 1:27

-- case: an unclosed bracket in a path
SELECT * FROM alpha WHERE tags[0 = 'x'
-- error: ERR_SQL_SYNTAX '[' is never closed at 1:31

-- case: a character outside the dialect
SELECT * FROM alpha WHERE a = 1 # comment
-- error: ERR_SQL_SYNTAX unexpected character '#' at 1:33

-- case: a malformed number
SELECT * FROM alpha WHERE a = 12abc
-- error: ERR_SQL_SYNTAX malformed number '12a' at 1:31

-- case: a number with a trailing dot
SELECT * FROM alpha WHERE a = 1.
-- error: ERR_SQL_SYNTAX malformed number '1.' at 1:31

-- case: a missing collection name
SELECT * FROM
-- error: ERR_SQL_SYNTAX expected a collection name after FROM, found end of input at 1:14

-- case: a keyword is not a collection name, and the error says how to use it as one
SELECT * FROM where
-- error: ERR_SQL_SYNTAX expected a collection name after FROM, found 'where': 'where' is a keyword; write "where" in double quotes to use it as a name at 1:15

-- case: FROM order names the quotes too
SELECT * FROM order
-- error: ERR_SQL_SYNTAX expected a collection name after FROM, found 'order': 'order' is a keyword; write "order" in double quotes to use it as a name at 1:15

-- case: a keyword compared as a field is told to go in quotes
SELECT * FROM alpha WHERE order = 1
-- error: ERR_SQL_SYNTAX expected a value at the start of a condition, found 'order': 'order' is a keyword; write "order" in double quotes to use it as a name at 1:27

-- case: a path is not a collection name
SELECT * FROM alpha[0]
-- error: ERR_SQL_SYNTAX expected a collection name after FROM, found 'alpha[0]' at 1:15

-- case: an empty select list
SELECT FROM alpha
-- error: ERR_SQL_SYNTAX expected a field path in the select list, found 'FROM' at 1:8

-- case: the statement stops early
SELECT *
-- error: ERR_SQL_SYNTAX expected FROM after the select list, found end of input at 1:9


-- case: fewer parameters than placeholders
-- params: [1]
SELECT * FROM alpha WHERE a = ? OR a = ?
-- error: ERR_SQL_PARAM the statement has 2 placeholder(s) but 1 parameter(s) were given

-- case: more parameters than placeholders
-- params: [1, 2]
SELECT * FROM alpha WHERE a = ?
-- error: ERR_SQL_PARAM the statement has 1 placeholder(s) but 2 parameter(s) were given

-- case: parameters for a statement without placeholders
-- params: [1]
SELECT * FROM alpha
-- error: ERR_SQL_PARAM the statement has 0 placeholder(s) but 1 parameter(s) were given

-- case: placeholders are numbered across the whole statement (WHERE, LIMIT, OFFSET)
-- params: [1, 1, 0]
SELECT a FROM alpha WHERE a = ? LIMIT ? OFFSET ?
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","a":1}]

-- case: a parameter mismatch is reported before an unknown collection
-- params: [1]
SELECT * FROM orders
-- error: ERR_SQL_PARAM the statement has 0 placeholder(s) but 1 parameter(s) were given

-- case: a unique violation
CREATE UNIQUE INDEX idx_alpha_a ON alpha (a)
-- plan: CREATE INDEX
-- affected: 0

-- case: a unique violation names the index, the collection, the path and the value
INSERT INTO alpha VALUES {"a":1}
-- error: ERR_UNIQUE_VIOLATION unique index 'idx_alpha_a' on alpha (a) already holds 1; nothing of this write was stored
