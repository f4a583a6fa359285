--- IS NULL and IS NOT NULL (spec §4 rule 1, DESIGN §4): IS NULL is true for null and for a
--- missing value (also a missing step of a nested path or an array position past the end);
--- IS NOT NULL is its negation and never unknown. = null and != null are never true.

-- load: t
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","a":null}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","a":0}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000004","a":""}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000005","a":false}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000006","a":{"b":null}}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000007","a":{"b":1}}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000008","a":[]}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000009","a":[null,2]}

-- case: IS NULL is true for null and for missing
SELECT a FROM t WHERE a IS NULL
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","a":null}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","a":null}

-- case: IS NOT NULL keeps 0, '', false, objects and arrays
SELECT a FROM t WHERE a IS NOT NULL
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","a":0}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000004","a":""}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000005","a":false}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000006","a":{"b":null}}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000007","a":{"b":1}}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000008","a":[]}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000009","a":[null,2]}

-- case: a nested path IS NULL when any step is missing or null
SELECT COUNT(*) FROM t WHERE a.b IS NULL
-- plan: COLLECTION_SCAN + AGGREGATE
-- rows: [{"COUNT(*)":8}]

-- case: a nested path IS NOT NULL only where it holds a value
SELECT a.b FROM t WHERE a.b IS NOT NULL
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000007","a.b":1}]

-- case: an array position holding null, or past the end, IS NULL
SELECT a FROM t WHERE a[0] IS NULL AND a IS NOT NULL AND a != 0 AND a != '' AND a != false
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000006","a":{"b":null}}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000007","a":{"b":1}}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000008","a":[]}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000009","a":[null,2]}

-- case: an array position holding a value IS NOT NULL
SELECT a[1] FROM t WHERE a[1] IS NOT NULL
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000009","a[1]":2}]

-- case: NOT (a IS NULL) is IS NOT NULL
SELECT COUNT(*) FROM t WHERE NOT a IS NULL
-- plan: COLLECTION_SCAN + AGGREGATE
-- rows: [{"COUNT(*)":7}]

-- case: IS NULL combines with OR
SELECT a FROM t WHERE a IS NULL OR a = 0
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","a":null}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","a":null}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","a":0}

-- case: = null never matches, not even null
SELECT a FROM t WHERE a = null
-- plan: COLLECTION_SCAN
-- rows: []

-- case: != null never matches either
SELECT a FROM t WHERE a != null
-- plan: COLLECTION_SCAN
-- rows: []

-- case: keywords of IS NOT NULL are case-insensitive
SELECT COUNT(*) FROM t WHERE a is not null
-- plan: COLLECTION_SCAN + AGGREGATE
-- rows: [{"COUNT(*)":7}]

-- setup
CREATE INDEX idx_a ON t (a)

-- case: IS NULL is not an index predicate: a collection scan even with an index on the path
SELECT a FROM t WHERE a IS NULL
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","a":null}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","a":null}

-- case: IS NULL combined with an indexed equality uses the index for the equality
SELECT a FROM t WHERE a = 0 AND a IS NOT NULL
-- plan: INDEX_SCAN(idx_a)
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","a":0}]

-- case: IS NULL needs a path on its left
SELECT a FROM t WHERE null IS NULL
-- error: ERR_SQL_SYNTAX IS NULL needs a field path on its left, found 'null' at 1:23

-- case: IS must be followed by NULL
SELECT a FROM t WHERE a IS 0
-- error: ERR_SQL_SYNTAX expected NULL after IS, found '0' at 1:28

-- case: IS NOT must be followed by NULL
SELECT a FROM t WHERE a IS NOT
-- error: ERR_SQL_SYNTAX expected NULL after IS NOT, found end of input at 1:31
