--- WHERE operators and SQL three-valued logic (spec §4 rule 1, DESIGN §4): a comparison with
--- null or a missing value is unknown and WHERE keeps only true rows; values of different types
--- are never equal and never ordered (30 = '30' is false, 30 != '30' is true); strings compare
--- case-sensitively by code point; AND binds tighter than OR; NOT of unknown is unknown.
--- Field v holds a different type in each document; w is set on a few.

-- load: t
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","v":30}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","v":"30"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","v":null}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000004"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000005","v":true}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000006","v":false}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000007","v":10.5}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000008","v":"abc"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000009","v":[30]}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000a","v":{"x":30}}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000b","v":40,"w":1}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000c","v":40,"w":2}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000d","v":5,"w":5}

-- case: = matches only the same type: 30 is not '30' and not [30]
SELECT v FROM t WHERE v = 30
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","v":30}]

-- case: = on a string literal matches only the string
SELECT v FROM t WHERE v = '30'
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","v":"30"}]

-- case: 30 = '30' between literals is false
SELECT v FROM t WHERE 30 = '30'
-- plan: COLLECTION_SCAN
-- rows: []

-- case: 30 != '30' between literals is true, so every row is kept
SELECT COUNT(*) FROM t WHERE 30 != '30'
-- plan: COLLECTION_SCAN + AGGREGATE
-- rows: [{"COUNT(*)":13}]

-- case: 'a' > 5 is false: values of different types are never ordered
SELECT v FROM t WHERE 'a' > 5 OR 'a' < 5
-- plan: COLLECTION_SCAN
-- rows: []

-- case: != is true for every other non-null value, whatever its type; null and missing are unknown
SELECT v FROM t WHERE v != 30
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","v":"30"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000005","v":true}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000006","v":false}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000007","v":10.5}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000008","v":"abc"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000009","v":[30]}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000a","v":{"x":30}}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000b","v":40}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000c","v":40}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000d","v":5}

-- case: <> is the same as !=
SELECT COUNT(*) FROM t WHERE v <> 30
-- plan: COLLECTION_SCAN + AGGREGATE
-- rows: [{"COUNT(*)":10}]

-- case: > orders numbers only against numbers ('30', true and [30] are not > 20)
SELECT v FROM t WHERE v > 20
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","v":30}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000b","v":40}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000c","v":40}

-- case: >= includes the bound
SELECT v FROM t WHERE v >= 40
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000b","v":40}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000c","v":40}

-- case: < on numbers (false is not < 30)
SELECT v FROM t WHERE v < 30
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000007","v":10.5}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000d","v":5}

-- case: <= includes the bound
SELECT v FROM t WHERE v <= 10.5
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000007","v":10.5}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000d","v":5}

-- case: strings are ordered by code point, and only against strings
SELECT v FROM t WHERE v > '4'
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000008","v":"abc"}]

-- case: a string range
SELECT v FROM t WHERE v >= '3' AND v < 'b'
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","v":"30"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000008","v":"abc"}

-- case: strings compare case-sensitively
SELECT v FROM t WHERE v = 'ABC'
-- plan: COLLECTION_SCAN
-- rows: []

-- case: booleans equal booleans
SELECT v FROM t WHERE v = true
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000005","v":true}]

-- case: false < true, and booleans are ordered only against booleans
SELECT v FROM t WHERE v < true
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000006","v":false}]

-- case: = null is unknown, never true
SELECT v FROM t WHERE v = null
-- plan: COLLECTION_SCAN
-- rows: []

-- case: != null is unknown too
SELECT v FROM t WHERE v != null
-- plan: COLLECTION_SCAN
-- rows: []

-- case: null = null is unknown
SELECT v FROM t WHERE null = null
-- plan: COLLECTION_SCAN
-- rows: []

-- case: a value on the left is the same as on the right (30 = v)
SELECT v FROM t WHERE 30 = v
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","v":30}]

-- case: a value on the left of < flips the comparison (20 < v means v > 20)
SELECT v FROM t WHERE 20 < v
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","v":30}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000b","v":40}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000c","v":40}

-- case: two paths can be compared (missing w is unknown)
SELECT v, w FROM t WHERE v = w
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000d","v":5,"w":5}]

-- case: path < path
SELECT v, w FROM t WHERE w < v
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000b","v":40,"w":1}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000c","v":40,"w":2}

-- case: AND of two ranges
SELECT v FROM t WHERE v > 5 AND v < 35
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","v":30}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000007","v":10.5}

-- case: OR across types
SELECT v FROM t WHERE v = 30 OR v = '30'
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","v":30}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","v":"30"}

-- case: AND binds tighter than OR
SELECT v, w FROM t WHERE v = 30 OR v = 40 AND w = 1
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","v":30,"w":null}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000b","v":40,"w":1}

-- case: parentheses override precedence (v = 30 has no w: unknown AND is not true)
SELECT v, w FROM t WHERE (v = 30 OR v = 40) AND w = 1
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000b","v":40,"w":1}]

-- case: nested parentheses
SELECT v FROM t WHERE ((v = 5) OR ((v = 10.5)))
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000007","v":10.5}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000d","v":5}

-- case: unknown OR true is true
SELECT v FROM t WHERE w = 1 OR v = 30
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","v":30}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000b","v":40}

-- case: NOT of unknown stays unknown (only w = 2 and w = 5 are kept)
SELECT v FROM t WHERE NOT w = 1
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000c","v":40}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000d","v":5}

-- case: NOT (v = 30) keeps every other typed value and drops null and missing
SELECT COUNT(*) FROM t WHERE NOT (v = 30)
-- plan: COLLECTION_SCAN + AGGREGATE
-- rows: [{"COUNT(*)":10}]

-- case: NOT (true AND unknown) is unknown: v = 30 without w is dropped; false AND unknown is false, so NOT keeps those
SELECT v FROM t WHERE NOT (v = 30 AND w = 1)
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","v":"30"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000005","v":true}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000006","v":false}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000007","v":10.5}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000008","v":"abc"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000009","v":[30]}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000a","v":{"x":30}}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000b","v":40}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000c","v":40}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000d","v":5}

-- case: NOT (unknown OR true) is false
SELECT v FROM t WHERE NOT (w = 9 OR v = 40)
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000d","v":5}]

-- case: NOT NOT cancels
SELECT v FROM t WHERE NOT NOT v = 30
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","v":30}]

-- case: a true literal condition keeps every row
SELECT COUNT(*) FROM t WHERE 1 = 1
-- plan: COLLECTION_SCAN + AGGREGATE
-- rows: [{"COUNT(*)":13}]

-- case: a comparison needs an operator
SELECT v FROM t WHERE v 30
-- error: ERR_SQL_SYNTAX expected a comparison (=, !=, <, <=, >, >=, LIKE, IN or IS NULL), found '30' at 1:25

-- case: NOT before a comparison operator is not allowed
SELECT v FROM t WHERE v NOT = 30
-- error: ERR_SQL_SYNTAX expected LIKE, ILIKE or IN after NOT, found '=' at 1:29

-- case: an unclosed parenthesis
SELECT v FROM t WHERE (v = 30 OR v = 40
-- error: ERR_SQL_SYNTAX expected ')' to close the parenthesis, found end of input at 1:40

-- case: AND without a right-hand side
SELECT v FROM t WHERE v = 30 AND
-- error: ERR_SQL_SYNTAX found end of input at 1:33
