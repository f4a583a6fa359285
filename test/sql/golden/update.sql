--- UPDATE (spec §4, DESIGN §4): UPDATE <collection> SET <path> = <literal> [, …] [WHERE …];
--- nested paths create the objects on the way and keep siblings; JSON objects and arrays are
--- literals too; every matching document is updated, atomically; the result carries the affected
--- count and the plan of the WHERE (indexes are used as in SELECT). _id cannot be SET.

-- load: accounts
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","name":"a","balance":10,"tier":"basic"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","name":"b","balance":20,"tier":"gold","profile":{"city":"Oslo"}}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","name":"c","balance":30,"tier":"basic","tags":["x"]}

-- load: eu.west.accounts
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000101","name":"w","balance":1}

-- case: UPDATE with WHERE reports the documents it changed
UPDATE accounts SET tier = 'silver' WHERE balance >= 20
-- plan: COLLECTION_SCAN
-- affected: 2

-- case: the matching documents changed, the others did not
SELECT name, tier FROM accounts
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","name":"a","tier":"basic"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","name":"b","tier":"silver"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","name":"c","tier":"silver"}

-- case: SET of nested paths creates the objects on the way
UPDATE accounts SET profile.city = 'Bergen', profile.address.zip = '5003' WHERE name = 'a'
-- plan: COLLECTION_SCAN
-- affected: 1

-- case: a nested SET into an existing object keeps its other fields
UPDATE accounts SET profile.zip = '0150' WHERE name = 'b'
-- plan: COLLECTION_SCAN
-- affected: 1

-- case: the nested values
SELECT profile FROM accounts WHERE name = 'a' OR name = 'b'
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","profile":{"city":"Bergen","address":{"zip":"5003"}}}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","profile":{"city":"Oslo","zip":"0150"}}

-- case: SET takes JSON objects and arrays, numbers, booleans and null
UPDATE accounts SET meta = {"k":[1,2]}, tags = ["p","q"], balance = 12.5, vip = true, tier = null WHERE name = 'a'
-- plan: COLLECTION_SCAN
-- affected: 1

-- case: the new values of every kind
SELECT * FROM accounts WHERE name = 'a'
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","name":"a","balance":12.5,"tier":null,"profile":{"city":"Bergen","address":{"zip":"5003"}},"meta":{"k":[1,2]},"tags":["p","q"],"vip":true}]

-- case: SET of an array position replaces that element
UPDATE accounts SET tags[0] = 'y' WHERE name = 'c'
-- plan: COLLECTION_SCAN
-- affected: 1

-- case: SET of the position just past the end appends
UPDATE accounts SET tags[1] = 'z' WHERE name = 'c'
-- plan: COLLECTION_SCAN
-- affected: 1

-- case: the array after both updates
SELECT tags FROM accounts WHERE name = 'c'
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","tags":["y","z"]}]

-- case: SET of a position beyond the end is an error
UPDATE accounts SET tags[5] = 'w' WHERE name = 'c'
-- error: ERR_SQL_INVALID cannot SET tags[5]: tags has 2 elements, and a position may be at most 2 (the next one)

-- case: SET through a scalar is an error
UPDATE accounts SET balance.cents = 5
-- error: ERR_SQL_INVALID cannot SET balance.cents: balance holds a number, not an object; SET balance = {} first to make it one

-- case: SET through null is an error too: null is a value, not a missing field (docs/sql.md)
UPDATE accounts SET tier.level = 1 WHERE name = 'a'
-- error: ERR_SQL_INVALID cannot SET tier.level: tier holds null, not an object; SET tier = {} first to make it one

-- case: a failed UPDATE changes nothing, not even rows before the failing one
SELECT balance FROM accounts
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","balance":12.5}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","balance":20}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","balance":30}

-- case: UPDATE without WHERE changes every document
UPDATE accounts SET active = true
-- plan: COLLECTION_SCAN
-- affected: 3

-- case: every document has the new field
SELECT COUNT(*) FROM accounts WHERE active = true
-- plan: COLLECTION_SCAN + AGGREGATE
-- rows: [{"COUNT(*)":3}]

-- case: UPDATE matching nothing affects 0
UPDATE accounts SET tier = 'x' WHERE name = 'nobody'
-- plan: COLLECTION_SCAN
-- affected: 0

-- case: values and WHERE from placeholders
-- params: [99, "c"]
UPDATE accounts SET balance = ? WHERE name = ?
-- plan: COLLECTION_SCAN
-- affected: 1

-- case: the placeholder value was stored
SELECT balance FROM accounts WHERE name = 'c'
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","balance":99}]

-- case: WHERE uses three-valued logic: tier = null is never true
UPDATE accounts SET flagged = true WHERE tier = null
-- plan: COLLECTION_SCAN
-- affected: 0

-- case: IS NULL does match the null tier
UPDATE accounts SET flagged = true WHERE tier IS NULL
-- plan: COLLECTION_SCAN
-- affected: 1

-- case: a dotted collection name
UPDATE eu.west.accounts SET balance = 2 WHERE name = 'w'
-- plan: COLLECTION_SCAN
-- affected: 1

-- case: _id cannot be changed
UPDATE accounts SET _id = '0193a4f2-7c1e-7d3a-9b2e-000000000009' WHERE name = 'a'
-- error: ERR_SQL_INVALID _id cannot be changed by UPDATE

-- case: UPDATE of an unknown collection
UPDATE nosuch SET a = 1
-- error: ERR_COLLECTION_NOT_FOUND unknown collection 'nosuch' (known: accounts, eu.west.accounts)

-- case: SET needs = and a value
UPDATE accounts SET balance 5
-- error: ERR_SQL_SYNTAX expected = after balance in SET, found '5' at 1:29

-- case: SET takes a literal, not an expression over paths
UPDATE accounts SET balance = balance
-- error: ERR_SQL_SYNTAX expected a value for balance in SET, found 'balance' at 1:31

-- case: UPDATE needs SET
UPDATE accounts WHERE name = 'a'
-- error: ERR_SQL_SYNTAX expected SET after UPDATE accounts, found 'WHERE' at 1:17

-- case: [*] cannot be SET
UPDATE accounts SET tags[*] = 'x'
-- error: ERR_SQL_SYNTAX [*] is only allowed in index definitions

-- setup
CREATE INDEX idx_name ON accounts (name)
CREATE INDEX idx_balance ON accounts (balance)

-- case: UPDATE uses an index for its WHERE and reports the plan
UPDATE accounts SET tier = 'gold' WHERE name = 'b'
-- plan: INDEX_SCAN(idx_name)
-- affected: 1

-- case: UPDATE through an index range
UPDATE accounts SET tier = 'platinum' WHERE balance > 50
-- plan: INDEX_RANGE_SCAN(idx_balance)
-- affected: 1

-- case: UPDATE through an IN list
UPDATE accounts SET seen = 1 WHERE name IN ('a', 'b', 'zz')
-- plan: INDEX_SCAN_MULTI(idx_name, 3 keys)
-- affected: 2

-- case: UPDATE of the indexed field itself, through that index
UPDATE accounts SET name = 'aa' WHERE name = 'a'
-- plan: INDEX_SCAN(idx_name)
-- affected: 1

-- case: the index follows the update: the new value is found
SELECT name FROM accounts WHERE name = 'aa'
-- plan: INDEX_SCAN(idx_name)
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","name":"aa"}]

-- case: the index follows the update: the old value is gone
SELECT name FROM accounts WHERE name = 'a'
-- plan: INDEX_SCAN(idx_name)
-- rows: []

-- case: a range UPDATE that moves every row within the range it reads affects each row once
UPDATE accounts SET balance = 1000 WHERE balance > 0
-- plan: INDEX_RANGE_SCAN(idx_balance)
-- affected: 3

-- case: the state after the index-driven updates
SELECT name, tier, balance, seen FROM accounts
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","name":"aa","tier":null,"balance":1000,"seen":1}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","name":"b","tier":"gold","balance":1000,"seen":1}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","name":"c","tier":"platinum","balance":1000,"seen":null}

-- case: SET through a name Object.prototype defines makes the field, as for any missing one
UPDATE accounts SET constructor.prototype.x = 1, toString = 's' WHERE name = 'b'
-- plan: INDEX_SCAN(idx_name)
-- affected: 1

-- case: the fields are the document's own; the others still have none
SELECT name, constructor, toString FROM accounts
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","name":"aa","constructor":null,"toString":null}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","name":"b","constructor":{"prototype":{"x":1}},"toString":"s"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","name":"c","constructor":null,"toString":null}

-- case: SET of __proto__ is refused: no document holds that field, and as a key it would set the prototype
UPDATE accounts SET __proto__.polluted = 1
-- error: ERR_SQL_SYNTAX invalid JSON path '__proto__.polluted': '__proto__' is not allowed as a field name at 1:21

-- case: … at any depth
UPDATE accounts SET profile.__proto__ = {"polluted": 1} WHERE name = 'b'
-- error: ERR_SQL_SYNTAX invalid JSON path 'profile.__proto__': '__proto__' is not allowed as a field name at 1:21

-- case: nor may a column be named __proto__: a row is a plain object
SELECT balance AS "__proto__" FROM accounts
-- error: ERR_SQL_SYNTAX a column cannot be named '__proto__', found '__proto__' at 1:19
