--- JOIN (spec §4 rule 6, DESIGN §4): an inner hash join on one equality; each result document
--- nests each collection's document under the collection's (canonical) name; paths in WHERE,
--- the select list, GROUP BY and ORDER BY are prefixed with the collection name; keys match by
--- typed value (1 never joins '1'; null and missing never join); several JOINs chain
--- left-deep; dotted names such as eu.west.orders work. The plan gains "+ HASH_JOIN(coll)" per
--- JOIN, after the access path of the FROM collection.

-- load: customers
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000101","cid":1,"name":"Ada","country":"UK"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000102","cid":2,"name":"Linus","country":"FI"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000103","cid":"3","name":"Grace","country":"US"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000104","name":"Nobody","country":"UK"}

-- load: orders
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000201","oid":"o1","cid":1,"total":10}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000202","oid":"o2","cid":2,"total":20}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000203","oid":"o3","cid":1,"total":30}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000204","oid":"o4","cid":3,"total":40}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000205","oid":"o5","total":50}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000206","oid":"o6","cid":null,"total":60}

-- load: countries
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000301","code":"UK","name":"United Kingdom"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000302","code":"FI","name":"Finland"}

-- load: eu.west.orders
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000401","oid":"w1","cid":2,"total":7}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000402","oid":"w2","cid":9,"total":8}

-- load: empty-side
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000501","cid":99}

-- case: SELECT * nests each document under its collection name; unmatched, null and mistyped keys drop out
SELECT * FROM orders JOIN customers ON orders.cid = customers.cid
-- plan: COLLECTION_SCAN + HASH_JOIN(customers)
-- unordered
-- rows:
{"orders":{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000201","oid":"o1","cid":1,"total":10},"customers":{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000101","cid":1,"name":"Ada","country":"UK"}}
{"orders":{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000202","oid":"o2","cid":2,"total":20},"customers":{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000102","cid":2,"name":"Linus","country":"FI"}}
{"orders":{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000203","oid":"o3","cid":1,"total":30},"customers":{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000101","cid":1,"name":"Ada","country":"UK"}}

-- case: the ON sides may be written either way round
SELECT orders.oid, customers.name FROM orders JOIN customers ON customers.cid = orders.cid ORDER BY orders.oid
-- plan: COLLECTION_SCAN + HASH_JOIN(customers)
-- rows:
{"orders.oid":"o1","customers.name":"Ada"}
{"orders.oid":"o2","customers.name":"Linus"}
{"orders.oid":"o3","customers.name":"Ada"}

-- case: INNER JOIN is the same join
SELECT orders.oid FROM orders INNER JOIN customers ON orders.cid = customers.cid ORDER BY orders.oid DESC
-- plan: COLLECTION_SCAN + HASH_JOIN(customers)
-- rows: [{"orders.oid":"o3"},{"orders.oid":"o2"},{"orders.oid":"o1"}]

-- case: WHERE on the joined collection
SELECT orders.oid FROM orders JOIN customers ON orders.cid = customers.cid WHERE customers.name = 'Ada' ORDER BY orders.oid
-- plan: COLLECTION_SCAN + HASH_JOIN(customers)
-- rows: [{"orders.oid":"o1"},{"orders.oid":"o3"}]

-- case: WHERE on both collections
SELECT orders.oid, orders.total FROM orders JOIN customers ON orders.cid = customers.cid WHERE customers.country = 'UK' AND orders.total > 15
-- plan: COLLECTION_SCAN + HASH_JOIN(customers)
-- rows: [{"orders.oid":"o3","orders.total":30}]

-- case: aliases in a joined select list
SELECT customers.name AS who, orders.total AS amount FROM orders JOIN customers ON orders.cid = customers.cid ORDER BY orders.total DESC LIMIT 2
-- plan: COLLECTION_SCAN + HASH_JOIN(customers)
-- rows: [{"who":"Ada","amount":30},{"who":"Linus","amount":20}]

-- case: ORDER BY a path of the joined collection, ties broken by _id source by source
SELECT orders.oid, customers.name FROM orders JOIN customers ON orders.cid = customers.cid ORDER BY customers.name
-- plan: COLLECTION_SCAN + HASH_JOIN(customers)
-- rows:
{"orders.oid":"o1","customers.name":"Ada"}
{"orders.oid":"o3","customers.name":"Ada"}
{"orders.oid":"o2","customers.name":"Linus"}

-- case: GROUP BY and aggregates over a join
SELECT customers.name, SUM(orders.total), COUNT(*) FROM orders JOIN customers ON orders.cid = customers.cid GROUP BY customers.name ORDER BY customers.name
-- plan: COLLECTION_SCAN + HASH_JOIN(customers) + AGGREGATE
-- rows:
{"customers.name":"Ada","SUM(orders.total)":40,"COUNT(*)":2}
{"customers.name":"Linus","SUM(orders.total)":20,"COUNT(*)":1}

-- case: DISTINCT over a join
SELECT DISTINCT customers.name FROM orders JOIN customers ON orders.cid = customers.cid
-- plan: COLLECTION_SCAN + HASH_JOIN(customers) + DISTINCT
-- unordered
-- rows: [{"customers.name":"Ada"},{"customers.name":"Linus"}]

-- case: a chain of two JOINs
SELECT orders.oid, customers.name, countries.name FROM orders JOIN customers ON orders.cid = customers.cid JOIN countries ON customers.country = countries.code ORDER BY orders.oid
-- plan: COLLECTION_SCAN + HASH_JOIN(customers) + HASH_JOIN(countries)
-- rows:
{"orders.oid":"o1","customers.name":"Ada","countries.name":"United Kingdom"}
{"orders.oid":"o2","customers.name":"Linus","countries.name":"Finland"}
{"orders.oid":"o3","customers.name":"Ada","countries.name":"United Kingdom"}

-- case: SELECT * over a chain nests three documents
SELECT * FROM orders JOIN customers ON orders.cid = customers.cid JOIN countries ON countries.code = customers.country WHERE orders.oid = 'o2'
-- plan: COLLECTION_SCAN + HASH_JOIN(customers) + HASH_JOIN(countries)
-- rows: [{"orders":{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000202","oid":"o2","cid":2,"total":20},"customers":{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000102","cid":2,"name":"Linus","country":"FI"},"countries":{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000302","code":"FI","name":"Finland"}}]

-- case: the second JOIN may join on the FROM collection
SELECT customers.name, countries.name FROM customers JOIN orders ON orders.cid = customers.cid JOIN countries ON customers.country = countries.code WHERE orders.total = 20
-- plan: COLLECTION_SCAN + HASH_JOIN(orders) + HASH_JOIN(countries)
-- rows: [{"customers.name":"Linus","countries.name":"Finland"}]

-- case: a chain with an aggregate
SELECT countries.name, SUM(orders.total) FROM orders JOIN customers ON orders.cid = customers.cid JOIN countries ON customers.country = countries.code GROUP BY countries.name ORDER BY countries.name
-- plan: COLLECTION_SCAN + HASH_JOIN(customers) + HASH_JOIN(countries) + AGGREGATE
-- rows:
{"countries.name":"Finland","SUM(orders.total)":20}
{"countries.name":"United Kingdom","SUM(orders.total)":40}

-- case: a join with no matches gives no rows
SELECT * FROM orders JOIN empty-side ON orders.cid = empty-side.cid
-- plan: COLLECTION_SCAN + HASH_JOIN(empty-side)
-- rows: []

-- case: a dotted collection name in FROM
SELECT oid FROM eu.west.orders WHERE cid = 2
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000401","oid":"w1"}]

-- case: a dotted collection name in a join: paths are prefixed with the whole name
SELECT eu.west.orders.oid, customers.name FROM eu.west.orders JOIN customers ON eu.west.orders.cid = customers.cid
-- plan: COLLECTION_SCAN + HASH_JOIN(customers)
-- rows: [{"eu.west.orders.oid":"w1","customers.name":"Linus"}]

-- case: a dotted collection name nests under the whole name
SELECT * FROM customers JOIN eu.west.orders ON customers.cid = eu.west.orders.cid
-- plan: COLLECTION_SCAN + HASH_JOIN(eu.west.orders)
-- rows: [{"customers":{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000102","cid":2,"name":"Linus","country":"FI"},"eu.west.orders":{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000401","oid":"w1","cid":2,"total":7}}]

-- case: collection names in a join are case-insensitive, and nest under the lowercase name
SELECT CUSTOMERS.name FROM ORDERS JOIN Customers ON Orders.cid = customers.cid WHERE ORDERS.oid = 'o1'
-- plan: COLLECTION_SCAN + HASH_JOIN(customers)
-- rows: [{"CUSTOMERS.name":"Ada"}]

-- setup
CREATE INDEX idx_orders_cid ON orders (cid)
CREATE INDEX idx_customers_name ON customers (name)

-- case: an index of the FROM collection serves its WHERE conjuncts
SELECT orders.oid, customers.name FROM orders JOIN customers ON orders.cid = customers.cid WHERE orders.cid = 1
-- plan: INDEX_SCAN(idx_orders_cid) + HASH_JOIN(customers)
-- unordered
-- rows:
{"orders.oid":"o1","customers.name":"Ada"}
{"orders.oid":"o3","customers.name":"Ada"}

-- case: a range on the FROM collection through its index
SELECT orders.oid FROM orders JOIN customers ON orders.cid = customers.cid WHERE orders.cid > 1
-- plan: INDEX_RANGE_SCAN(idx_orders_cid) + HASH_JOIN(customers)
-- rows: [{"orders.oid":"o2"}]

-- case: a WHERE on the joined collection does not pick its index (the access path is the FROM collection's)
SELECT orders.oid FROM orders JOIN customers ON orders.cid = customers.cid WHERE customers.name = 'Linus'
-- plan: COLLECTION_SCAN + HASH_JOIN(customers)
-- rows: [{"orders.oid":"o2"}]

-- case: every suffix in order: access path, HASH_JOIN, AGGREGATE, DISTINCT
SELECT DISTINCT COUNT(*) FROM orders JOIN customers ON orders.cid = customers.cid WHERE orders.cid IN (1, 2)
-- plan: INDEX_SCAN_MULTI(idx_orders_cid, 2 keys) + HASH_JOIN(customers) + AGGREGATE + DISTINCT
-- rows: [{"COUNT(*)":3}]

-- case: an unknown JOIN collection names the known ones
SELECT * FROM orders JOIN nosuch ON orders.cid = nosuch.cid
-- error: ERR_COLLECTION_NOT_FOUND unknown collection 'nosuch' (known: countries, customers, empty-side, eu.west.orders, orders)

-- case: an unprefixed path in WHERE of a join
SELECT * FROM orders JOIN customers ON orders.cid = customers.cid WHERE total > 1
-- error: ERR_SQL_INVALID path 'total' at 1:73 must start with one of the joined collections (orders, customers)

-- case: an unprefixed path in ON
SELECT * FROM orders JOIN customers ON cid = customers.cid
-- error: ERR_SQL_INVALID path 'cid' at 1:40 must start with one of the joined collections (orders, customers)

-- case: an unprefixed path in the select list of a join
SELECT name FROM orders JOIN customers ON orders.cid = customers.cid
-- error: ERR_SQL_INVALID path 'name' at 1:8 must start with one of the joined collections (orders, customers)

-- case: an unprefixed path in the select list is an error even when the join has no rows
SELECT name FROM orders JOIN empty-side ON orders.cid = empty-side.cid
-- error: ERR_SQL_INVALID path 'name' at 1:8 must start with one of the joined collections (orders, empty-side)

-- case: ON must compare a path of the joined collection with an earlier one
SELECT * FROM orders JOIN customers ON orders.cid = orders.total
-- error: ERR_SQL_INVALID JOIN customers ON must compare a path of customers with a path of a collection before it

-- case: JOIN conditions are equalities
SELECT * FROM orders JOIN customers ON orders.cid > customers.cid
-- error: ERR_SQL_SYNTAX expected = in the JOIN condition (joins are equalities), found '>' at 1:51

-- case: JOIN needs ON
SELECT * FROM orders JOIN customers WHERE orders.cid = 1
-- error: ERR_SQL_SYNTAX expected ON after JOIN customers, found 'WHERE' at 1:37

-- case: INNER must be followed by JOIN
SELECT * FROM orders INNER customers ON orders.cid = customers.cid
-- error: ERR_SQL_SYNTAX expected JOIN after INNER, found 'customers' at 1:28

-- case: ON compares paths, not values
SELECT * FROM orders JOIN customers ON orders.cid = 1
-- error: ERR_SQL_SYNTAX expected a field path after = in the JOIN condition, found '1' at 1:53
