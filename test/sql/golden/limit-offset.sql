--- LIMIT and OFFSET (spec §4 rule 5, DESIGN §4): non-negative integers (literals or ?); without
--- ORDER BY they apply in scan order (_id order for a collection scan, key order for an index
--- range); OFFSET skips rows before LIMIT counts; both apply to aggregate output rows too.

-- load: n
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","i":1}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","i":6}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","i":2}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000004","i":5}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000005","i":3}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000006","i":4}

-- case: LIMIT without ORDER BY takes the first rows of the scan
SELECT i FROM n LIMIT 2
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","i":1}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","i":6}

-- case: LIMIT 0 gives no rows
SELECT i FROM n LIMIT 0
-- plan: COLLECTION_SCAN
-- rows: []

-- case: LIMIT larger than the result gives every row
SELECT COUNT(*) FROM n LIMIT 100
-- plan: COLLECTION_SCAN + AGGREGATE
-- rows: [{"COUNT(*)":6}]

-- case: LIMIT and OFFSET
SELECT i FROM n LIMIT 2 OFFSET 2
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","i":2}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000004","i":5}

-- case: OFFSET without LIMIT
SELECT i FROM n OFFSET 4
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000005","i":3}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000006","i":4}

-- case: OFFSET past the end gives no rows
SELECT i FROM n OFFSET 6
-- plan: COLLECTION_SCAN
-- rows: []

-- case: OFFSET 0 changes nothing
SELECT i FROM n LIMIT 1 OFFSET 0
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","i":1}]

-- case: LIMIT counts rows that pass WHERE
SELECT i FROM n WHERE i > 2 LIMIT 2
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","i":6}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000004","i":5}

-- case: ORDER BY, then OFFSET, then LIMIT
SELECT i FROM n ORDER BY i DESC LIMIT 2 OFFSET 1
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000004","i":5}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000006","i":4}

-- case: LIMIT from a placeholder
-- params: [3]
SELECT i FROM n LIMIT ?
-- plan: COLLECTION_SCAN
-- count: 3
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","i":1}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","i":6}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","i":2}

-- case: LIMIT and OFFSET from placeholders, after a WHERE placeholder
-- params: [1, 1, 2]
SELECT i FROM n WHERE i > ? LIMIT ? OFFSET ?
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000004","i":5}]

-- case: LIMIT applies to aggregate rows: LIMIT 0 drops the one COUNT row
SELECT COUNT(*) FROM n LIMIT 0
-- plan: COLLECTION_SCAN + AGGREGATE
-- rows: []

-- case: a negative LIMIT parameter
-- params: [-1]
SELECT i FROM n LIMIT ?
-- error: ERR_SQL_PARAM LIMIT must be a non-negative integer; got -1

-- case: a fractional OFFSET parameter
-- params: [1.5]
SELECT i FROM n OFFSET ?
-- error: ERR_SQL_PARAM OFFSET must be a non-negative integer; got 1.5

-- case: a string LIMIT parameter
-- params: ["2"]
SELECT i FROM n LIMIT ?
-- error: ERR_SQL_PARAM LIMIT must be a non-negative integer; got "2"

-- case: a negative LIMIT literal
SELECT i FROM n LIMIT -1
-- error: ERR_SQL_SYNTAX expected a non-negative integer after LIMIT, found '-1' at 1:23

-- case: a fractional LIMIT literal
SELECT i FROM n LIMIT 1.5
-- error: ERR_SQL_SYNTAX expected a non-negative integer after LIMIT, found '1.5' at 1:23

-- case: a string OFFSET literal
SELECT i FROM n LIMIT 1 OFFSET '1'
-- error: ERR_SQL_SYNTAX expected a non-negative integer after OFFSET, found ''1'' at 1:32

-- case: OFFSET comes after LIMIT
SELECT i FROM n OFFSET 1 LIMIT 1
-- error: ERR_SQL_SYNTAX expected the end of the statement, found 'LIMIT' at 1:26

-- case: LIMIT needs a number
SELECT i FROM n LIMIT
-- error: ERR_SQL_SYNTAX expected a non-negative integer after LIMIT, found end of input at 1:22

-- setup
CREATE INDEX idx_i ON n (i)

-- case: LIMIT through an index range takes the first rows in key order
SELECT i FROM n WHERE i >= 2 LIMIT 2
-- plan: INDEX_RANGE_SCAN(idx_i)
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","i":2}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000005","i":3}

-- case: OFFSET through an index range
SELECT i FROM n WHERE i < 5 LIMIT 2 OFFSET 2
-- plan: INDEX_RANGE_SCAN(idx_i)
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000005","i":3}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000006","i":4}
