--- IN (spec §4 rule 2): IN (v1, …, vN) lowers to v = v1 OR … OR v = vN; duplicates are removed;
--- numbers, strings, booleans and null are allowed; an empty list is a parse error. Through an
--- index an IN of several distinct values is INDEX_SCAN_MULTI(name, N keys) and of one value
--- INDEX_SCAN(name) (DESIGN §4). NOT IN follows three-valued logic (a null in the list makes it
--- never true).

-- load: p
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","code":"A","n":1}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","code":"B","n":2}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","code":"C","n":"2"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000004","code":null,"n":3}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000005","n":1}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000006","code":"A","n":true}

-- case: IN on strings
SELECT code FROM p WHERE code IN ('A', 'C')
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","code":"A"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","code":"C"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000006","code":"A"}

-- case: duplicates in the list never duplicate rows
SELECT code FROM p WHERE code IN ('A', 'A', 'B', 'A')
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","code":"A"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","code":"B"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000006","code":"A"}

-- case: IN compares with types: 1 and '2' match only 1 and '2'
SELECT n FROM p WHERE n IN (1, '2')
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","n":1}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","n":"2"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000005","n":1}

-- case: booleans in an IN list
SELECT n FROM p WHERE n IN (true, 3)
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000004","n":3}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000006","n":true}

-- case: a single-value IN is an equality
SELECT n FROM p WHERE n IN (2)
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","n":2}]

-- case: IN (null) is never true
SELECT code FROM p WHERE code IN (null)
-- plan: COLLECTION_SCAN
-- rows: []

-- case: a null in the list does not stop other values matching
SELECT code FROM p WHERE code IN ('B', null)
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","code":"B"}]

-- case: NOT IN keeps typed values outside the list; null and missing are unknown
SELECT code FROM p WHERE code NOT IN ('A', 'B')
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","code":"C"}]

-- case: NOT IN with a null in the list is never true
SELECT code FROM p WHERE code NOT IN ('A', null)
-- plan: COLLECTION_SCAN
-- rows: []

-- case: NOT (… IN …) is the same as NOT IN
SELECT code FROM p WHERE NOT code IN ('A', 'B')
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","code":"C"}]

-- case: IN takes placeholders
-- params: ["B","C"]
SELECT code FROM p WHERE code IN (?, ?)
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","code":"B"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","code":"C"}

-- case: IN inside a larger condition
SELECT code, n FROM p WHERE code IN ('A', 'B') AND n = 1
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","code":"A","n":1}]

-- case: an empty IN list is a parse error
SELECT code FROM p WHERE code IN ()
-- error: ERR_SQL_SYNTAX IN needs at least one value; an empty list is not allowed, found ')' at 1:35

-- case: an IN list must be closed
SELECT code FROM p WHERE code IN ('A', 'B'
-- error: ERR_SQL_SYNTAX expected ')' to close the IN list opened at 1:34, found end of input at 1:43

-- case: IN needs a parenthesised list
SELECT code FROM p WHERE code IN 'A'
-- error: ERR_SQL_SYNTAX expected '(' after IN, found ''A'' at 1:34

-- case: IN takes scalars only, not JSON objects
SELECT code FROM p WHERE code IN ({"a":1})
-- error: ERR_SQL_SYNTAX IN takes numbers, strings, booleans and null only, found '{"a":1}' at 1:35

-- case: IN takes values, not paths
SELECT code FROM p WHERE code IN (n)
-- error: ERR_SQL_SYNTAX expected a value in the IN list, found 'n' at 1:35

-- case: IN needs a path on its left
SELECT code FROM p WHERE 'A' IN ('A')
-- error: ERR_SQL_SYNTAX IN needs a field path on its left, found ''A'' at 1:26

-- setup
CREATE INDEX idx_code ON p (code)

-- case: IN of two values through an index: INDEX_SCAN_MULTI with 2 keys
SELECT code FROM p WHERE code IN ('A', 'B')
-- plan: INDEX_SCAN_MULTI(idx_code, 2 keys)
-- unordered
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","code":"A"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","code":"B"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000006","code":"A"}

-- case: duplicates are removed before the lookup: 2 keys, each row once
SELECT code FROM p WHERE code IN ('A', 'B', 'A', 'B')
-- plan: INDEX_SCAN_MULTI(idx_code, 2 keys)
-- unordered
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","code":"A"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","code":"B"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000006","code":"A"}

-- case: three keys
SELECT code FROM p WHERE code IN ('C', 'B', 'A')
-- plan: INDEX_SCAN_MULTI(idx_code, 3 keys)
-- unordered
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","code":"A"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","code":"B"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","code":"C"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000006","code":"A"}

-- case: a single-value IN through an index is INDEX_SCAN, never INDEX_SCAN_MULTI(…, 1 keys)
SELECT code FROM p WHERE code IN ('A')
-- plan: INDEX_SCAN(idx_code)
-- unordered
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","code":"A"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000006","code":"A"}

-- case: an IN whose values are all the same is one key: INDEX_SCAN
SELECT code FROM p WHERE code IN ('A', 'A', 'A')
-- plan: INDEX_SCAN(idx_code)
-- unordered
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","code":"A"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000006","code":"A"}

-- case: an OR of equalities on one indexed path is INDEX_SCAN_MULTI too
SELECT code FROM p WHERE code = 'A' OR code = 'C' OR code = 'Z'
-- plan: INDEX_SCAN_MULTI(idx_code, 3 keys)
-- unordered
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","code":"A"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","code":"C"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000006","code":"A"}

-- case: an OR repeating one equality is one key
SELECT code FROM p WHERE code = 'B' OR code = 'B'
-- plan: INDEX_SCAN(idx_code)
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","code":"B"}]

-- case: placeholders with the same value: two lookups, each row still once
-- params: ["A","A"]
SELECT code FROM p WHERE code IN (?, ?)
-- plan: INDEX_SCAN_MULTI(idx_code, 2 keys)
-- unordered
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","code":"A"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000006","code":"A"}

-- case: an IN combined with AND on an unindexed path keeps the multi-key access
SELECT code, n FROM p WHERE code IN ('A', 'B') AND n = 1
-- plan: INDEX_SCAN_MULTI(idx_code, 2 keys)
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","code":"A","n":1}]

-- case: an OR over two different paths cannot use one index
SELECT code, n FROM p WHERE code = 'B' OR n = 3
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","code":"B","n":2}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000004","code":null,"n":3}

-- case: IN with a null is answered by a scan and still finds the non-null values
SELECT code FROM p WHERE code IN ('B', null)
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","code":"B"}]

-- case: NOT IN is answered by a scan
SELECT code FROM p WHERE code NOT IN ('A', 'B')
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","code":"C"}]

-- case: an IN matching nothing through the index
SELECT code FROM p WHERE code IN ('X', 'Y')
-- plan: INDEX_SCAN_MULTI(idx_code, 2 keys)
-- rows: []
