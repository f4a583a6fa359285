--- CREATE [UNIQUE] INDEX and DROP INDEX (spec §4, DESIGN §3): single, nested, composite and
--- multikey ([*]) paths; index names keep their case and are looked up case-insensitively;
--- unique indexes reject duplicates on insert and update (nothing of the write is stored) but
--- allow any number of null or missing values; the collection must exist. Both statements
--- report their own plan ("CREATE INDEX", "DROP INDEX") and affected 0.

-- load: users
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","email":"a@x","team":"red","role":"dev","tags":["a","b"],"address":{"city":"Oslo"}}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","email":"b@x","team":"red","role":"ops","tags":["b"],"address":{"city":"Rome"}}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","email":"c@x","team":"blue","role":"dev","tags":["c","a"]}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000004","team":"blue","role":"dev"}

-- case: CREATE INDEX on one path
CREATE INDEX idx_team ON users (team)
-- plan: CREATE INDEX
-- affected: 0

-- case: the new index serves an equality
SELECT email FROM users WHERE team = 'red'
-- plan: INDEX_SCAN(idx_team)
-- unordered
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","email":"a@x"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","email":"b@x"}

-- case: CREATE UNIQUE INDEX over existing distinct values (and one missing)
CREATE UNIQUE INDEX idx_email ON users (email)
-- plan: CREATE INDEX
-- affected: 0

-- case: a unique index rejects a duplicate insert
INSERT INTO users VALUES {"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000005","email":"a@x"}
-- error: ERR_UNIQUE_VIOLATION unique index 'idx_email' on users (email) already holds "a@x"; nothing of this write was stored

-- case: the rejected document was not stored
SELECT COUNT(*) FROM users
-- plan: COLLECTION_SCAN + AGGREGATE
-- rows: [{"COUNT(*)":4}]

-- case: a unique index allows several documents without the value
INSERT INTO users VALUES [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000006","team":"green"},{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000007","team":"green","email":null}]
-- plan: INSERT
-- affected: 2
-- ids: ["0193a4f2-7c1e-7d3a-9b2e-000000000006","0193a4f2-7c1e-7d3a-9b2e-000000000007"]

-- case: a unique index rejects an UPDATE that would duplicate a value
UPDATE users SET email = 'b@x' WHERE team = 'blue'
-- error: ERR_UNIQUE_VIOLATION unique index 'idx_email' on users (email) already holds "b@x"

-- case: the rejected UPDATE changed nothing
SELECT email FROM users WHERE team = 'blue'
-- plan: INDEX_SCAN(idx_team)
-- unordered
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","email":"c@x"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000004","email":null}

-- case: the unique index is preferred over another equality index
SELECT email FROM users WHERE team = 'red' AND email = 'b@x'
-- plan: INDEX_SCAN(idx_email)
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","email":"b@x"}]

-- case: a unique index on values that are already duplicated is refused
CREATE UNIQUE INDEX idx_team_unique ON users (team)
-- error: ERR_UNIQUE_VIOLATION unique index 'idx_team_unique' on users (team) already holds

-- case: the refused index does not exist
DROP INDEX idx_team_unique ON users
-- error: ERR_INDEX_NOT_FOUND collection users has no index named 'idx_team_unique' (indexes: idx_team, idx_email)

-- case: a composite index
CREATE INDEX idx_team_role ON users (team, role)
-- plan: CREATE INDEX
-- affected: 0

-- case: equality on every path of a composite index, in either order
SELECT email FROM users WHERE role = 'dev' AND team = 'blue'
-- plan: INDEX_SCAN_COMPOSITE(idx_team_role)
-- unordered
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","email":"c@x"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000004","email":null}

-- case: a composite index is preferred over its single-path sibling
SELECT email FROM users WHERE team = 'red' AND role = 'ops'
-- plan: INDEX_SCAN_COMPOSITE(idx_team_role)
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","email":"b@x"}]

-- case: a composite index does not serve its second path alone
SELECT email FROM users WHERE role = 'ops'
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","email":"b@x"}]

-- case: a multikey index on array elements
CREATE INDEX idx_tags ON users (tags[*])
-- plan: CREATE INDEX
-- affected: 0

-- case: a multikey index serves a WHERE on a specific position; the position is still checked
SELECT tags FROM users WHERE tags[0] = 'a'
-- plan: INDEX_SCAN(idx_tags)
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","tags":["a","b"]}]

-- case: the same index serves another position
SELECT tags FROM users WHERE tags[1] = 'a'
-- plan: INDEX_SCAN(idx_tags)
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","tags":["c","a"]}]

-- case: a multikey index serves a range on a position
SELECT tags FROM users WHERE tags[0] >= 'b'
-- plan: INDEX_RANGE_SCAN(idx_tags)
-- unordered
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","tags":["b"]}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","tags":["c","a"]}

-- case: ranges on two different positions of a multikey path find what a scan finds
SELECT tags FROM users WHERE tags[0] < 'b' AND tags[1] > 'a'
-- plan: INDEX_RANGE_SCAN(idx_tags)
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","tags":["a","b"]}]

-- case: ranges on one position of a multikey path use both bounds
SELECT tags FROM users WHERE tags[0] > 'a' AND tags[0] < 'c'
-- plan: INDEX_RANGE_SCAN(idx_tags)
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","tags":["b"]}]

-- case: an index on a nested path, with a mixed-case name
CREATE INDEX ByCity ON users (address.city)
-- plan: CREATE INDEX
-- affected: 0

-- case: the plan shows the name as created
SELECT email FROM users WHERE address.city = 'Rome'
-- plan: INDEX_SCAN(ByCity)
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","email":"b@x"}]

-- case: index names are unique per collection, ignoring case
CREATE INDEX BYCITY ON users (role)
-- error: ERR_INDEX_EXISTS collection users already has an index named 'BYCITY'

-- case: DROP INDEX finds the name ignoring case
DROP INDEX bycity ON users
-- plan: DROP INDEX
-- affected: 0

-- case: after DROP INDEX the query is a collection scan
SELECT email FROM users WHERE address.city = 'Rome'
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","email":"b@x"}]

-- case: DROP INDEX of a name that does not exist lists the indexes
DROP INDEX nope ON users
-- error: ERR_INDEX_NOT_FOUND collection users has no index named 'nope' (indexes: idx_team, idx_email, idx_team_role, idx_tags)

-- case: the index name may be a quoted string
CREATE INDEX 'idx.role-1' ON users (role)
-- plan: CREATE INDEX
-- affected: 0

-- case: the quoted index name appears in the plan
SELECT COUNT(*) FROM users WHERE role = 'dev'
-- plan: INDEX_SCAN(idx.role-1) + AGGREGATE
-- rows: [{"COUNT(*)":3}]

-- case: an index name outside the naming rules
CREATE INDEX 'bad name' ON users (role)
-- error: ERR_INDEX_INVALID index name 'bad name' may hold letters, digits, '.', '_' and '-' only

-- case: _id needs no index
CREATE INDEX idx_id ON users (_id)
-- error: ERR_INDEX_INVALID '_id' is the primary key and needs no index

-- case: a composite index may not list a path twice
CREATE INDEX idx_twice ON users (team, team)
-- error: ERR_INDEX_INVALID an index lists the same path twice

-- case: a composite index may hold one [*] path at most
CREATE INDEX idx_two_each ON users (tags[*], roles[*])
-- error: ERR_INDEX_INVALID a composite index may hold at most one path with [*]

-- case: CREATE INDEX on an unknown collection
CREATE INDEX idx_x ON nosuch (a)
-- error: ERR_COLLECTION_NOT_FOUND unknown collection 'nosuch' (known: users)

-- case: DROP INDEX on an unknown collection
DROP INDEX idx_team ON nosuch
-- error: ERR_COLLECTION_NOT_FOUND unknown collection 'nosuch' (known: users)

-- case: CREATE INDEX needs parentheses
CREATE INDEX idx_x ON users team
-- error: ERR_SQL_SYNTAX expected '(' before the indexed paths, found 'team' at 1:29

-- case: CREATE INDEX needs at least one path
CREATE INDEX idx_x ON users ()
-- error: ERR_SQL_SYNTAX expected a path to index, found ')' at 1:30

-- case: CREATE INDEX needs a closing parenthesis
CREATE INDEX idx_x ON users (team
-- error: ERR_SQL_SYNTAX expected ')' after the indexed paths, found end of input at 1:34

-- case: CREATE takes INDEX only
CREATE TABLE users (a)
-- error: ERR_SQL_SYNTAX expected INDEX after CREATE, found 'TABLE' at 1:8

-- case: CREATE UNIQUE takes INDEX
CREATE UNIQUE users (a)
-- error: ERR_SQL_SYNTAX expected INDEX after CREATE UNIQUE, found 'users' at 1:15

-- case: CREATE INDEX needs ON
CREATE INDEX idx_x users (a)
-- error: ERR_SQL_SYNTAX expected ON after the index name idx_x, found 'users' at 1:20

-- case: DROP INDEX needs ON and a collection
DROP INDEX idx_team
-- error: ERR_SQL_SYNTAX expected ON after the index name idx_team, found end of input at 1:20

-- case: DROP takes INDEX only
DROP TABLE users
-- error: ERR_SQL_SYNTAX expected INDEX after DROP, found 'TABLE' at 1:6

-- case: an index path must be a valid path
CREATE INDEX idx_x ON users (tags[x])
-- error: ERR_SQL_SYNTAX invalid JSON path 'tags[x]': '[x]' is not an array position (use [0], [1], … or [*]) at 1:30
