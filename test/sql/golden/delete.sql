--- DELETE (spec §4, DESIGN §4): DELETE FROM <collection> [WHERE …] deletes every matching
--- document; without WHERE it deletes everything but the collection stays; the result carries the
--- affected count and the plan of the WHERE (indexes are used as in SELECT).

-- load: logs
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","level":"debug","n":1}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","level":"info","n":2}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","level":"debug","n":3}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000004","level":"warn","n":4}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000005","level":"error","n":5}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000006","level":"info","n":6}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000007","n":7}

-- load: eu.west.logs
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000101","level":"debug"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000102","level":"info"}

-- case: DELETE with WHERE reports the documents it removed
DELETE FROM logs WHERE level = 'debug'
-- plan: COLLECTION_SCAN
-- affected: 2

-- case: the others are still there
SELECT level FROM logs
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","level":"info"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000004","level":"warn"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000005","level":"error"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000006","level":"info"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000007","level":null}

-- case: DELETE matching nothing affects 0
DELETE FROM logs WHERE level = 'trace'
-- plan: COLLECTION_SCAN
-- affected: 0

-- case: WHERE uses three-valued logic: != does not delete the missing level
DELETE FROM logs WHERE level != 'info' AND level != 'warn' AND level != 'error'
-- plan: COLLECTION_SCAN
-- affected: 0

-- case: DELETE with a placeholder
-- params: ["error"]
DELETE FROM logs WHERE level = ?
-- plan: COLLECTION_SCAN
-- affected: 1

-- case: a dotted collection name
DELETE FROM eu.west.logs WHERE level = 'debug'
-- plan: COLLECTION_SCAN
-- affected: 1

-- case: the dotted collection keeps its other document
SELECT level FROM eu.west.logs
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000102","level":"info"}]

-- setup
CREATE INDEX idx_n ON logs (n)
CREATE INDEX idx_level ON logs (level)

-- case: DELETE through an index range
DELETE FROM logs WHERE n > 5
-- plan: INDEX_RANGE_SCAN(idx_n)
-- affected: 2

-- case: DELETE through an index equality
DELETE FROM logs WHERE level = 'warn'
-- plan: INDEX_SCAN(idx_level)
-- affected: 1

-- case: the index no longer lists deleted documents
SELECT n FROM logs WHERE n >= 0
-- plan: INDEX_RANGE_SCAN(idx_n)
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","n":2}]

-- case: DELETE through an IN list
DELETE FROM logs WHERE level IN ('info', 'nope')
-- plan: INDEX_SCAN_MULTI(idx_level, 2 keys)
-- affected: 1

-- setup
INSERT INTO logs VALUES [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000011","level":"a"},{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000012","level":"b"}]

-- case: DELETE without WHERE deletes every document
DELETE FROM logs
-- plan: COLLECTION_SCAN
-- affected: 2

-- case: the collection still exists and is empty
SELECT COUNT(*) FROM logs
-- plan: COLLECTION_SCAN + AGGREGATE
-- rows: [{"COUNT(*)":0}]

-- case: DELETE on an empty collection affects 0
DELETE FROM logs;
-- plan: COLLECTION_SCAN
-- affected: 0

-- case: DELETE of an unknown collection
DELETE FROM nosuch WHERE a = 1
-- error: ERR_COLLECTION_NOT_FOUND unknown collection 'nosuch' (known: eu.west.logs, logs)

-- case: DELETE needs FROM
DELETE logs
-- error: ERR_SQL_SYNTAX expected FROM after DELETE, found 'logs' at 1:8

-- case: DELETE takes no column list
DELETE * FROM logs
-- error: ERR_SQL_SYNTAX expected FROM after DELETE, found '*' at 1:8

-- case: DELETE needs a collection
DELETE FROM
-- error: ERR_SQL_SYNTAX expected a collection name after DELETE FROM, found end of input at 1:12
