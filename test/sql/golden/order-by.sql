--- ORDER BY (DESIGN §4): one or more paths, ASC (default) or DESC, in the total order of
--- DESIGN §3: missing/null < false < true < numbers < strings (code point order) < arrays <
--- objects; ties are broken by _id (ascending, also under DESC) so results are deterministic.
--- With ORDER BY the whole matching set is sorted before LIMIT/OFFSET (spec §4 rule 5).

-- load: m
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","v":"b"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","v":2}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","v":null}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000004"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000005","v":true}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000006","v":false}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000007","v":10}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000008","v":"B"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000009","v":2.0}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000a","v":[1]}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000b","v":{"a":1}}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000c","v":"a"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000d","v":-7.5}

-- load: people
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000101","last":"Smith","first":"Ann","age":30,"name":{"last":"Smith"}}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000102","last":"Jones","first":"Bob","age":25,"name":{"last":"Jones"}}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000103","last":"Smith","first":"Cid","age":25,"name":{"last":"Smith"}}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000104","last":"Jones","first":"Al","age":40,"name":{"last":"Jones"}}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000105","last":"Smith","first":"Ann","age":22,"name":{"last":"Smith"}}

-- case: ascending over mixed types follows the total order; ties (null/missing, 2/2.0) by _id
SELECT v FROM m ORDER BY v
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","v":null}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000004","v":null}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000006","v":false}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000005","v":true}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000d","v":-7.5}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","v":2}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000009","v":2}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000007","v":10}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000008","v":"B"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000c","v":"a"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","v":"b"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000a","v":[1]}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000b","v":{"a":1}}

-- case: ASC written out is the default
SELECT v FROM m WHERE v > 0 ORDER BY v ASC
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","v":2}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000009","v":2}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000007","v":10}

-- case: descending reverses the value order; ties stay in _id order
SELECT v FROM m ORDER BY v DESC
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000b","v":{"a":1}}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000a","v":[1]}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","v":"b"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000c","v":"a"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000008","v":"B"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000007","v":10}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","v":2}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000009","v":2}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000d","v":-7.5}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000005","v":true}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000006","v":false}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","v":null}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000004","v":null}

-- case: several paths: the second breaks ties of the first, then _id
SELECT last, first FROM people ORDER BY last, first
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000104","last":"Jones","first":"Al"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000102","last":"Jones","first":"Bob"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000101","last":"Smith","first":"Ann"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000105","last":"Smith","first":"Ann"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000103","last":"Smith","first":"Cid"}

-- case: DESC on the first path, ASC on the second
SELECT last, age FROM people ORDER BY last DESC, age
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000105","last":"Smith","age":22}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000103","last":"Smith","age":25}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000101","last":"Smith","age":30}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000102","last":"Jones","age":25}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000104","last":"Jones","age":40}

-- case: ASC on the first path, DESC on the second
SELECT age, last FROM people ORDER BY age DESC, last ASC
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000104","age":40,"last":"Jones"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000101","age":30,"last":"Smith"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000102","age":25,"last":"Jones"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000103","age":25,"last":"Smith"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000105","age":22,"last":"Smith"}

-- case: three paths
SELECT last, first, age FROM people ORDER BY last, first, age DESC
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000104","last":"Jones","first":"Al","age":40}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000102","last":"Jones","first":"Bob","age":25}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000101","last":"Smith","first":"Ann","age":30}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000105","last":"Smith","first":"Ann","age":22}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000103","last":"Smith","first":"Cid","age":25}

-- case: ORDER BY a nested path that is not projected
SELECT first FROM people ORDER BY name.last DESC, first DESC
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000103","first":"Cid"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000101","first":"Ann"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000105","first":"Ann"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000102","first":"Bob"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000104","first":"Al"}

-- case: ORDER BY with LIMIT sorts everything first: the two youngest
SELECT first, age FROM people ORDER BY age LIMIT 2
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000105","first":"Ann","age":22}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000102","first":"Bob","age":25}

-- case: ORDER BY with WHERE, LIMIT and OFFSET
SELECT first FROM people WHERE last = 'Smith' ORDER BY age DESC LIMIT 2 OFFSET 1
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000103","first":"Cid"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000105","first":"Ann"}

-- case: ORDER BY _id DESC
SELECT first FROM people ORDER BY _id DESC LIMIT 2
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000105","first":"Ann"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000104","first":"Al"}

-- case: ORDER BY keywords are case-insensitive
SELECT first FROM people order by age desc limit 1
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000104","first":"Al"}]

-- setup
CREATE INDEX idx_age ON people (age)

-- case: ORDER BY after an index range scan sorts by the ORDER BY paths, not the index
SELECT first, last FROM people WHERE age >= 25 ORDER BY last DESC, first
-- plan: INDEX_RANGE_SCAN(idx_age)
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000101","first":"Ann","last":"Smith"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000103","first":"Cid","last":"Smith"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000104","first":"Al","last":"Jones"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000102","first":"Bob","last":"Jones"}

-- case: ORDER BY needs BY
SELECT first FROM people ORDER age
-- error: ERR_SQL_SYNTAX expected BY after ORDER, found 'age' at 1:32

-- case: ORDER BY needs a path
SELECT first FROM people ORDER BY
-- error: ERR_SQL_SYNTAX expected a field path in ORDER BY, found end of input at 1:34

-- case: ORDER BY comes before LIMIT
SELECT first FROM people LIMIT 1 ORDER BY age
-- error: ERR_SQL_SYNTAX expected the end of the statement, found 'ORDER' at 1:34
