--- Every plan string of spec §4's plan table and DESIGN §4, on one collection: INDEX_SCAN,
--- INDEX_RANGE_SCAN (one side and both sides), INDEX_SCAN_COMPOSITE, INDEX_SCAN_MULTI(name, N
--- keys), COLLECTION_SCAN, the "+ HASH_JOIN(coll)", "+ AGGREGATE" and "+ DISTINCT" suffixes, the
--- plans of UPDATE, DELETE, INSERT, CREATE INDEX and DROP INDEX, and the stale indexes of a
--- skipIndexes load (never used until rebuilt; results stay correct). Preference: a composite
--- index with equality on all its paths, then a single-path equality (unique first), then an OR
--- of equalities on one path, then a range.

-- load: flights
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","code":"F1","origin":"OSL","dest":"LHR","price":100,"seats":2,"tags":["wifi","meal"]}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","code":"F2","origin":"OSL","dest":"CDG","price":250,"seats":5,"tags":["meal"]}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","code":"F3","origin":"CDG","dest":"OSL","price":80,"seats":0,"tags":["wifi"]}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000004","code":"F4","origin":"LHR","dest":"OSL","price":300,"seats":9,"tags":[]}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000005","code":"F5","origin":"CDG","dest":"LHR","price":"120","seats":1}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000006","code":"F6","origin":"OSL","dest":"LHR","price":null}

-- load: airports
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000101","code":"OSL","city":"Oslo"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000102","code":"CDG","city":"Paris"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000103","code":"LHR","city":"London"}

-- case: without indexes every WHERE is a collection scan
SELECT code FROM flights WHERE code = 'F1'
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","code":"F1"}]

-- case: the plan of CREATE UNIQUE INDEX
CREATE UNIQUE INDEX idx_code ON flights (code)
-- plan: CREATE INDEX
-- affected: 0

-- setup
CREATE INDEX idx_origin ON flights (origin)
CREATE INDEX idx_price ON flights (price)
CREATE INDEX idx_origin_dest ON flights (origin, dest)
CREATE INDEX idx_tags ON flights (tags[*])

-- case: INDEX_SCAN: equality through a unique single-path index
SELECT code FROM flights WHERE code = 'F1'
-- plan: INDEX_SCAN(idx_code)
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","code":"F1"}]

-- case: INDEX_SCAN: equality through a non-unique index
SELECT code FROM flights WHERE origin = 'OSL'
-- plan: INDEX_SCAN(idx_origin)
-- unordered
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","code":"F1"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","code":"F2"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000006","code":"F6"}

-- case: INDEX_SCAN finds numbers by numeric value (100 = 100.0) and never a string
SELECT code FROM flights WHERE price = 100.0
-- plan: INDEX_SCAN(idx_price)
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","code":"F1"}]

-- case: INDEX_SCAN with a placeholder value
-- params: [250]
SELECT code FROM flights WHERE price = ?
-- plan: INDEX_SCAN(idx_price)
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","code":"F2"}]

-- case: INDEX_SCAN on a string is case-sensitive
SELECT code FROM flights WHERE code = 'f1'
-- plan: INDEX_SCAN(idx_code)
-- rows: []

-- case: INDEX_RANGE_SCAN with a lower bound
SELECT code FROM flights WHERE price > 100
-- plan: INDEX_RANGE_SCAN(idx_price)
-- unordered
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","code":"F2"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000004","code":"F4"}

-- case: INDEX_RANGE_SCAN with an upper bound (null and strings are not below 100)
SELECT code FROM flights WHERE price <= 100
-- plan: INDEX_RANGE_SCAN(idx_price)
-- unordered
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","code":"F1"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","code":"F3"}

-- case: INDEX_RANGE_SCAN with both bounds
SELECT code FROM flights WHERE price >= 100 AND price < 300
-- plan: INDEX_RANGE_SCAN(idx_price)
-- unordered
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","code":"F1"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","code":"F2"}

-- case: INDEX_RANGE_SCAN with the value on the left
SELECT code FROM flights WHERE 100 < price
-- plan: INDEX_RANGE_SCAN(idx_price)
-- unordered
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","code":"F2"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000004","code":"F4"}

-- case: INDEX_RANGE_SCAN with two lower bounds: the whole WHERE is still applied
SELECT code FROM flights WHERE price > 50 AND price > 90 AND price < 260
-- plan: INDEX_RANGE_SCAN(idx_price)
-- unordered
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","code":"F1"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","code":"F2"}

-- case: INDEX_RANGE_SCAN on strings finds only strings
SELECT code FROM flights WHERE price > '100'
-- plan: INDEX_RANGE_SCAN(idx_price)
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000005","code":"F5"}]

-- case: INDEX_RANGE_SCAN with bounds of different types matches nothing
SELECT code FROM flights WHERE price > 1 AND price < 'z'
-- plan: INDEX_RANGE_SCAN(idx_price)
-- rows: []

-- case: INDEX_SCAN_COMPOSITE: equality on every path of a composite index
SELECT code FROM flights WHERE origin = 'OSL' AND dest = 'LHR'
-- plan: INDEX_SCAN_COMPOSITE(idx_origin_dest)
-- unordered
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","code":"F1"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000006","code":"F6"}

-- case: INDEX_SCAN_COMPOSITE is preferred even over a unique index
SELECT code FROM flights WHERE code = 'F1' AND dest = 'LHR' AND origin = 'OSL'
-- plan: INDEX_SCAN_COMPOSITE(idx_origin_dest)
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","code":"F1"}]

-- case: INDEX_SCAN_COMPOSITE with placeholders
-- params: ["CDG", "LHR"]
SELECT code FROM flights WHERE origin = ? AND dest = ?
-- plan: INDEX_SCAN_COMPOSITE(idx_origin_dest)
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000005","code":"F5"}]

-- case: INDEX_SCAN_MULTI: IN on an indexed path, one lookup per distinct value
SELECT code FROM flights WHERE origin IN ('OSL', 'CDG')
-- plan: INDEX_SCAN_MULTI(idx_origin, 2 keys)
-- unordered
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","code":"F1"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","code":"F2"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","code":"F3"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000005","code":"F5"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000006","code":"F6"}

-- case: INDEX_SCAN_MULTI: IN with duplicates counts distinct keys
SELECT code FROM flights WHERE origin IN ('OSL', 'CDG', 'OSL', 'CDG', 'LHR')
-- plan: INDEX_SCAN_MULTI(idx_origin, 3 keys)
-- count: 6
-- unordered
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","code":"F1"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","code":"F2"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","code":"F3"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000004","code":"F4"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000005","code":"F5"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000006","code":"F6"}

-- case: INDEX_SCAN_MULTI: an OR of equalities on the unique path
SELECT code FROM flights WHERE code = 'F1' OR code = 'F2'
-- plan: INDEX_SCAN_MULTI(idx_code, 2 keys)
-- unordered
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","code":"F1"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","code":"F2"}

-- case: a single-value IN is INDEX_SCAN
SELECT code FROM flights WHERE origin IN ('LHR')
-- plan: INDEX_SCAN(idx_origin)
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000004","code":"F4"}]

-- case: an IN whose values collapse to one is INDEX_SCAN
SELECT code FROM flights WHERE origin IN ('LHR', 'LHR')
-- plan: INDEX_SCAN(idx_origin)
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000004","code":"F4"}]

-- case: INDEX_SCAN through a multikey index for a position in WHERE
SELECT code FROM flights WHERE tags[0] = 'wifi'
-- plan: INDEX_SCAN(idx_tags)
-- unordered
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","code":"F1"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","code":"F3"}

-- case: preference: unique single-path equality before other equalities
SELECT code FROM flights WHERE origin = 'OSL' AND code = 'F2'
-- plan: INDEX_SCAN(idx_code)
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","code":"F2"}]

-- case: preference: equality before range
SELECT code FROM flights WHERE price > 100 AND origin = 'OSL'
-- plan: INDEX_SCAN(idx_origin)
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","code":"F2"}]

-- case: preference: an OR of equalities before a range
SELECT code FROM flights WHERE price > 0 AND origin IN ('LHR', 'CDG')
-- plan: INDEX_SCAN_MULTI(idx_origin, 2 keys)
-- unordered
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","code":"F3"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000004","code":"F4"}

-- case: COLLECTION_SCAN: no index on the path
SELECT code FROM flights WHERE seats > 3
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","code":"F2"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000004","code":"F4"}

-- case: COLLECTION_SCAN: != is not an index predicate
SELECT code FROM flights WHERE price != 100
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","code":"F2"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","code":"F3"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000004","code":"F4"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000005","code":"F5"}

-- case: COLLECTION_SCAN: NOT hides the equality from the planner
SELECT COUNT(*) FROM flights WHERE NOT price = 100
-- plan: COLLECTION_SCAN + AGGREGATE
-- rows: [{"COUNT(*)":4}]

-- case: COLLECTION_SCAN: an OR across two paths
SELECT code FROM flights WHERE price = 100 OR origin = 'LHR'
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","code":"F1"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000004","code":"F4"}

-- case: COLLECTION_SCAN: LIKE
SELECT code FROM flights WHERE origin LIKE 'O%'
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","code":"F1"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","code":"F2"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000006","code":"F6"}

-- case: COLLECTION_SCAN: = null is never true, nothing to look up
SELECT code FROM flights WHERE price = null
-- plan: COLLECTION_SCAN
-- rows: []

-- case: COLLECTION_SCAN: IS NULL
SELECT code FROM flights WHERE price IS NULL
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000006","code":"F6"}]

-- case: COLLECTION_SCAN: a composite index needs equality on all its paths
SELECT code FROM flights WHERE dest = 'OSL'
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","code":"F3"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000004","code":"F4"}

-- case: COLLECTION_SCAN: no WHERE
SELECT COUNT(*) FROM flights
-- plan: COLLECTION_SCAN + AGGREGATE
-- rows: [{"COUNT(*)":6}]

-- case: + AGGREGATE after an index lookup
SELECT COUNT(*) FROM flights WHERE origin = 'OSL'
-- plan: INDEX_SCAN(idx_origin) + AGGREGATE
-- rows: [{"COUNT(*)":3}]

-- case: + AGGREGATE after a composite lookup
SELECT COUNT(*) FROM flights WHERE origin = 'OSL' AND dest = 'LHR'
-- plan: INDEX_SCAN_COMPOSITE(idx_origin_dest) + AGGREGATE
-- rows: [{"COUNT(*)":2}]

-- case: + AGGREGATE for GROUP BY after a multi-key lookup
SELECT origin, COUNT(*) FROM flights WHERE origin IN ('OSL', 'CDG') GROUP BY origin ORDER BY origin
-- plan: INDEX_SCAN_MULTI(idx_origin, 2 keys) + AGGREGATE
-- rows: [{"origin":"CDG","COUNT(*)":2},{"origin":"OSL","COUNT(*)":3}]

-- case: + DISTINCT after a range
SELECT DISTINCT origin FROM flights WHERE price > 0
-- plan: INDEX_RANGE_SCAN(idx_price) + DISTINCT
-- unordered
-- rows: [{"origin":"CDG"},{"origin":"OSL"},{"origin":"LHR"}]

-- case: + HASH_JOIN after an index lookup
SELECT flights.code, airports.city FROM flights JOIN airports ON flights.dest = airports.code WHERE flights.code = 'F1'
-- plan: INDEX_SCAN(idx_code) + HASH_JOIN(airports)
-- rows: [{"flights.code":"F1","airports.city":"London"}]

-- case: every suffix: access path + HASH_JOIN + AGGREGATE + DISTINCT
SELECT DISTINCT COUNT(*) FROM flights JOIN airports ON flights.origin = airports.code WHERE flights.price >= 100 AND flights.price <= 300
-- plan: INDEX_RANGE_SCAN(idx_price) + HASH_JOIN(airports) + AGGREGATE + DISTINCT
-- rows: [{"COUNT(*)":3}]

-- case: UPDATE reports its access path: INDEX_SCAN_MULTI
UPDATE flights SET checked = true WHERE origin IN ('OSL', 'CDG')
-- plan: INDEX_SCAN_MULTI(idx_origin, 2 keys)
-- affected: 5

-- case: UPDATE reports its access path: INDEX_SCAN_COMPOSITE
UPDATE flights SET checked = false WHERE origin = 'OSL' AND dest = 'LHR'
-- plan: INDEX_SCAN_COMPOSITE(idx_origin_dest)
-- affected: 2

-- case: DELETE reports its access path: INDEX_RANGE_SCAN
DELETE FROM flights WHERE price > 1000
-- plan: INDEX_RANGE_SCAN(idx_price)
-- affected: 0

-- case: DELETE reports its access path: INDEX_SCAN
DELETE FROM flights WHERE code = 'nope'
-- plan: INDEX_SCAN(idx_code)
-- affected: 0

-- case: the plan of INSERT
INSERT INTO flights VALUES {"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000007","code":"F7","origin":"OSL","dest":"LHR","price":100}
-- plan: INSERT
-- affected: 1
-- ids: ["0193a4f2-7c1e-7d3a-9b2e-000000000007"]

-- case: an inserted document is in the indexes at once
SELECT code FROM flights WHERE origin = 'OSL' AND dest = 'LHR'
-- plan: INDEX_SCAN_COMPOSITE(idx_origin_dest)
-- unordered
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","code":"F1"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000006","code":"F6"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000007","code":"F7"}

-- load: flights skipIndexes
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000008","code":"F8","origin":"OSL","dest":"LHR","price":150,"tags":["wifi"]}

-- case: stale indexes after a skipIndexes load are never used: equality
SELECT code FROM flights WHERE code = 'F8'
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000008","code":"F8"}]

-- case: stale indexes: a range is a collection scan and finds the new document
SELECT code FROM flights WHERE price > 120 AND price < 200
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000008","code":"F8"}]

-- case: stale indexes: composite
SELECT code FROM flights WHERE origin = 'OSL' AND dest = 'LHR'
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","code":"F1"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000006","code":"F6"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000007","code":"F7"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000008","code":"F8"}

-- case: stale indexes: IN
SELECT COUNT(*) FROM flights WHERE origin IN ('OSL', 'LHR')
-- plan: COLLECTION_SCAN + AGGREGATE
-- rows: [{"COUNT(*)":6}]

-- case: stale indexes: multikey
SELECT code FROM flights WHERE tags[0] = 'wifi'
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","code":"F1"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","code":"F3"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000008","code":"F8"}

-- case: stale indexes: UPDATE scans too
UPDATE flights SET seats = 4 WHERE code = 'F8'
-- plan: COLLECTION_SCAN
-- affected: 1

-- case: stale indexes: DELETE scans too
DELETE FROM flights WHERE code = 'F7'
-- plan: COLLECTION_SCAN
-- affected: 1

-- rebuild-indexes: flights

-- case: after a rebuild the index is used again and finds the loaded document
SELECT code, seats FROM flights WHERE code = 'F8'
-- plan: INDEX_SCAN(idx_code)
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000008","code":"F8","seats":4}]

-- case: after a rebuild: range
SELECT code FROM flights WHERE price > 120 AND price < 200
-- plan: INDEX_RANGE_SCAN(idx_price)
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000008","code":"F8"}]

-- case: after a rebuild: composite (the deleted document is gone)
SELECT code FROM flights WHERE origin = 'OSL' AND dest = 'LHR'
-- plan: INDEX_SCAN_COMPOSITE(idx_origin_dest)
-- unordered
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","code":"F1"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000006","code":"F6"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000008","code":"F8"}

-- case: after a rebuild: multikey
SELECT code FROM flights WHERE tags[0] = 'wifi'
-- plan: INDEX_SCAN(idx_tags)
-- unordered
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","code":"F1"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","code":"F3"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000008","code":"F8"}

-- case: the plan of DROP INDEX
DROP INDEX idx_origin_dest ON flights
-- plan: DROP INDEX
-- affected: 0

-- case: after dropping the composite index its equalities fall back to a single-path index
SELECT code FROM flights WHERE origin = 'OSL' AND dest = 'LHR'
-- plan: INDEX_SCAN(idx_origin)
-- unordered
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","code":"F1"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000006","code":"F6"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000008","code":"F8"}

--- Equality with a placeholder holding an object or array: a scan compares typed values
--- (DESIGN §4), so an equal object matches; an index lookup must give the same rows.

-- load: shapes
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000901","shape":{"x":1}}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000902","shape":[1,2]}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000903","shape":"x"}

-- case: an object placeholder without an index matches the equal object
-- params: [{"x":1}]
SELECT shape FROM shapes WHERE shape = ?
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000901","shape":{"x":1}}]

-- case: an array placeholder without an index matches the equal array
-- params: [[1,2]]
SELECT shape FROM shapes WHERE shape = ?
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000902","shape":[1,2]}]

-- setup
CREATE INDEX idx_shape ON shapes (shape)

-- case: an object placeholder cannot be looked up in an index: the bound plan scans and says so
-- params: [{"x":1}]
SELECT shape FROM shapes WHERE shape = ?
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000901","shape":{"x":1}}]

-- case: an array placeholder cannot be looked up in an index: the bound plan scans and says so
-- params: [[1,2]]
SELECT shape FROM shapes WHERE shape = ?
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000902","shape":[1,2]}]

-- case: a scalar placeholder through the same index
-- params: ["x"]
SELECT shape FROM shapes WHERE shape = ?
-- plan: INDEX_SCAN(idx_shape)
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000903","shape":"x"}]
