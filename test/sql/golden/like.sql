--- LIKE and ILIKE (spec §4 rule 1, DESIGN §4): % matches any run of characters (newlines too),
--- _ exactly one character (one code point); every other character matches itself, regular
--- expression characters included. LIKE is case-sensitive, ILIKE is not. A null or missing
--- value is unknown; a non-string value never matches. x NOT LIKE p is NOT (x LIKE p).

-- load: names
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","name":"Alice"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","name":"alice"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","name":"Alfred"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000004","name":"Bob"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000005","name":"A_b%c"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000006","name":"a.c"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000007","name":42}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000008","name":null}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000009"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000a","name":"line1\nline2"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000b","name":"über"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000c","name":"x+y(z)"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000d","name":"abc"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000e","name":"O'Hara"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000f","name":"😀x"}

-- case: % matches a run of characters; LIKE is case-sensitive
SELECT name FROM names WHERE name LIKE 'Al%'
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","name":"Alice"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","name":"Alfred"}

-- case: the lowercase prefix matches only lowercase
SELECT name FROM names WHERE name LIKE 'al%'
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","name":"alice"}]

-- case: ILIKE ignores case
SELECT name FROM names WHERE name ILIKE 'al%'
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","name":"Alice"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","name":"alice"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","name":"Alfred"}

-- case: ILIKE folds non-ASCII letters too
SELECT name FROM names WHERE name ILIKE 'ÜBER'
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000b","name":"über"}]

-- case: % at the start
SELECT name FROM names WHERE name LIKE '%ice'
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","name":"Alice"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","name":"alice"}

-- case: % in the middle
SELECT name FROM names WHERE name LIKE 'A%e%'
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","name":"Alice"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","name":"Alfred"}

-- case: _ matches exactly one character
SELECT name FROM names WHERE name LIKE '_lice'
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","name":"Alice"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","name":"alice"}

-- case: several _ in a row
SELECT name FROM names WHERE name LIKE 'A__ce'
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","name":"Alice"}]

-- case: _ is one code point, even outside the BMP
SELECT name FROM names WHERE name LIKE '_x'
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000f","name":"😀x"}]

-- case: _ matches a non-ASCII letter
SELECT name FROM names WHERE name LIKE '_ber'
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000b","name":"über"}]

-- case: _ matches any character, '.' among them
SELECT name FROM names WHERE name LIKE 'a_c'
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000006","name":"a.c"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000d","name":"abc"}

-- case: '.' in a pattern is a literal dot, not a regular-expression wildcard
SELECT name FROM names WHERE name LIKE 'a.c'
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000006","name":"a.c"}]

-- case: regular-expression characters match themselves
SELECT name FROM names WHERE name LIKE 'x+y(z)'
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000c","name":"x+y(z)"}]

-- case: a pattern without wildcards is an exact, whole-string match
SELECT name FROM names WHERE name LIKE 'Ali'
-- plan: COLLECTION_SCAN
-- rows: []

-- case: % matches across newlines
SELECT name FROM names WHERE name LIKE 'line1%2'
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000a","name":"line1\nline2"}]

-- case: '' in the pattern is a quote
SELECT name FROM names WHERE name LIKE 'O''%'
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000e","name":"O'Hara"}]

-- case: % alone matches every string, and nothing else (not 42, null or missing)
SELECT COUNT(*) FROM names WHERE name LIKE '%'
-- plan: COLLECTION_SCAN + AGGREGATE
-- rows: [{"COUNT(*)":12}]

-- case: the wildcard characters in a value are matched by wildcards
SELECT name FROM names WHERE name LIKE 'A_b%'
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000005","name":"A_b%c"}]

-- case: NOT LIKE keeps the other strings (name >= '' keeps strings only)
SELECT name FROM names WHERE name >= '' AND name NOT LIKE '%a%' AND name NOT LIKE '%e%'
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000004","name":"Bob"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000005","name":"A_b%c"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000c","name":"x+y(z)"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000f","name":"😀x"}

-- case: LIKE on a number is false, so NOT (… LIKE …) keeps the number
SELECT name FROM names WHERE NOT (name LIKE '%')
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000007","name":42}]

-- case: x NOT LIKE p is the same as NOT (x LIKE p), for a number as well
SELECT name FROM names WHERE name NOT LIKE '%'
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000007","name":42}]

-- case: NOT ILIKE
SELECT name FROM names WHERE name >= '' AND name NOT ILIKE '%A%' AND name NOT ILIKE '%e%'
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000004","name":"Bob"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000c","name":"x+y(z)"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000f","name":"😀x"}

-- case: LIKE null is unknown, and so is its negation
SELECT name FROM names WHERE name LIKE null OR NOT name LIKE null
-- plan: COLLECTION_SCAN
-- rows: []

-- case: the pattern can be a placeholder
-- params: ["B%"]
SELECT name FROM names WHERE name LIKE ?
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000004","name":"Bob"}]

-- case: keywords LIKE and ILIKE are case-insensitive
SELECT name FROM names WHERE name like 'B%' OR name ilike 'ABC'
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000004","name":"Bob"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000d","name":"abc"}

-- case: LIKE is not an index predicate
CREATE INDEX idx_name ON names (name)
-- plan: CREATE INDEX
-- affected: 0

-- case: LIKE with an index on the path is still a collection scan
SELECT name FROM names WHERE name LIKE 'B%'
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000004","name":"Bob"}]

-- case: LIKE needs a path on its left
SELECT name FROM names WHERE 'abc' LIKE 'a%'
-- error: ERR_SQL_SYNTAX LIKE needs a field path on its left, found ''abc'' at 1:30

-- case: LIKE needs a pattern value
SELECT name FROM names WHERE name LIKE name
-- error: ERR_SQL_SYNTAX expected a value after LIKE, found 'name' at 1:40
