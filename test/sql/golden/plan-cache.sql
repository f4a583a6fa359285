--- Plans are cached by SQL text (engine/query.ts) and must never outlive the catalog they were
--- made under: the very same statement text is repeated here across CREATE INDEX, a
--- skipIndexes load (stale indexes), a rebuild, DROP INDEX, dropping and re-creating the FROM
--- collection and a joined collection, and with other parameter values.

-- load: c
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","code":"A","n":1}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","code":"B","n":2}

-- load: j
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000101","code":"A","label":"first"}

-- case: no index yet
SELECT code FROM c WHERE code = 'A'
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","code":"A"}]

-- setup
CREATE INDEX idx_code ON c (code)

-- case: the same text after CREATE INDEX uses the index
SELECT code FROM c WHERE code = 'A'
-- plan: INDEX_SCAN(idx_code)
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","code":"A"}]

-- case: the same text with placeholders, first values
-- params: ["A"]
SELECT code FROM c WHERE code = ?
-- plan: INDEX_SCAN(idx_code)
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","code":"A"}]

-- case: the same text with placeholders, other values
-- params: ["B"]
SELECT code FROM c WHERE code = ?
-- plan: INDEX_SCAN(idx_code)
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","code":"B"}]

-- case: an INSERT between two runs of the same text is seen
INSERT INTO c VALUES {"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","code":"A","n":3}
-- plan: INSERT
-- affected: 1
-- ids: ["0193a4f2-7c1e-7d3a-9b2e-000000000003"]

-- case: the same text sees the inserted document
SELECT code FROM c WHERE code = 'A'
-- plan: INDEX_SCAN(idx_code)
-- unordered
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","code":"A"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","code":"A"}

-- load: c skipIndexes
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000004","code":"A","n":4}

-- case: the same text after a skipIndexes load scans and finds the loaded document
SELECT code FROM c WHERE code = 'A'
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","code":"A"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","code":"A"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000004","code":"A"}

-- case: UPDATE with the stale index scans too
UPDATE c SET seen = true WHERE code = 'A'
-- plan: COLLECTION_SCAN
-- affected: 3

-- rebuild-indexes: c

-- case: the same text after the rebuild uses the index again
SELECT code FROM c WHERE code = 'A'
-- plan: INDEX_SCAN(idx_code)
-- unordered
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","code":"A"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","code":"A"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000004","code":"A"}

-- case: the same UPDATE text after the rebuild uses the index
UPDATE c SET seen = true WHERE code = 'A'
-- plan: INDEX_SCAN(idx_code)
-- affected: 3

-- case: a join, first run
SELECT c.n, j.label FROM c JOIN j ON c.code = j.code WHERE c.code = 'A' ORDER BY c.n
-- plan: INDEX_SCAN(idx_code) + HASH_JOIN(j)
-- rows:
{"c.n":1,"j.label":"first"}
{"c.n":3,"j.label":"first"}
{"c.n":4,"j.label":"first"}

-- setup
DROP INDEX idx_code ON c

-- case: the same text after DROP INDEX scans
SELECT code FROM c WHERE code = 'A'
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","code":"A"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","code":"A"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000004","code":"A"}

-- case: an index of the same name but another path is not taken for the old one
CREATE INDEX idx_code ON c (n)
-- plan: CREATE INDEX
-- affected: 0

-- case: the same text: idx_code now indexes n, so code = 'A' is a scan
SELECT code FROM c WHERE code = 'A'
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","code":"A"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","code":"A"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000004","code":"A"}

-- drop-collection: j

-- case: the same join text after the joined collection was dropped
SELECT c.n, j.label FROM c JOIN j ON c.code = j.code WHERE c.code = 'A' ORDER BY c.n
-- error: ERR_COLLECTION_NOT_FOUND unknown collection 'j' (known: c)

-- load: j
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000102","code":"A","label":"second"}

-- case: the same join text sees the re-created joined collection
SELECT c.n, j.label FROM c JOIN j ON c.code = j.code WHERE c.code = 'A' ORDER BY c.n
-- plan: COLLECTION_SCAN + HASH_JOIN(j)
-- rows:
{"c.n":1,"j.label":"second"}
{"c.n":3,"j.label":"second"}
{"c.n":4,"j.label":"second"}

-- drop-collection: c

-- case: the same text after the collection was dropped
SELECT code FROM c WHERE code = 'A'
-- error: ERR_COLLECTION_NOT_FOUND unknown collection 'c' (known: j)

-- case: the same UPDATE text after the collection was dropped
UPDATE c SET seen = true WHERE code = 'A'
-- error: ERR_COLLECTION_NOT_FOUND unknown collection 'c' (known: j)

-- setup
INSERT INTO c VALUES {"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000009","code":"A","n":9}

-- case: the same text on the re-created collection (no index, new documents only)
SELECT code FROM c WHERE code = 'A'
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000009","code":"A"}]

-- setup
CREATE UNIQUE INDEX idx_code ON c (code)

-- case: the same text on the re-created collection with its new index
SELECT code FROM c WHERE code = 'A'
-- plan: INDEX_SCAN(idx_code)
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000009","code":"A"}]
