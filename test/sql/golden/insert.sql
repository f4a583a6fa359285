--- INSERT (spec §4, DESIGN §4): INSERT INTO <collection> VALUES <JSON document>, a JSON array of
--- documents, several comma-separated documents, or ? holding either; the collection is created
--- on first insert; a missing _id is filled with a time-ordered UUIDv7 (strictly increasing); a
--- valid UUID _id is kept; the statement is all or nothing. The plan is "INSERT", the result
--- carries affected and ids and no documents.

-- case: one document with an _id creates the collection
INSERT INTO people VALUES {"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","name":"Ada","tags":["x"]}
-- plan: INSERT
-- affected: 1
-- ids: ["0193a4f2-7c1e-7d3a-9b2e-000000000001"]

-- case: the document reads back as inserted
SELECT * FROM people
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","name":"Ada","tags":["x"]}]

-- case: a JSON array inserts several documents
INSERT INTO people VALUES [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","name":"Bob"},{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","name":"Cy"}]
-- plan: INSERT
-- affected: 2
-- ids: ["0193a4f2-7c1e-7d3a-9b2e-000000000002","0193a4f2-7c1e-7d3a-9b2e-000000000003"]

-- case: several comma-separated documents
INSERT INTO people VALUES {"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000004","name":"Di"}, {"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000005","name":"Ed"}
-- plan: INSERT
-- affected: 2
-- ids: ["0193a4f2-7c1e-7d3a-9b2e-000000000004","0193a4f2-7c1e-7d3a-9b2e-000000000005"]

-- case: a document without _id gets a generated one
INSERT INTO people VALUES {"name":"Gen"}
-- plan: INSERT
-- affected: 1
-- ids: 1 new

-- case: the generated _id is a UUID on the stored document
SELECT * FROM people WHERE name = 'Gen'
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"<uuid>","name":"Gen"}]

-- case: generated ids of one statement are strictly increasing
INSERT INTO people VALUES [{"name":"g1"},{"name":"g2"},{"name":"g3"}]
-- plan: INSERT
-- affected: 3
-- ids: 3 new

-- case: generated ids sort after the fixed ones, in insertion order
SELECT name FROM people ORDER BY _id
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","name":"Ada"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","name":"Bob"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","name":"Cy"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000004","name":"Di"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000005","name":"Ed"}
{"_id":"<uuid>","name":"Gen"}
{"_id":"<uuid>","name":"g1"}
{"_id":"<uuid>","name":"g2"}
{"_id":"<uuid>","name":"g3"}

-- case: a document from a placeholder
-- params: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000006","name":"Param","n":1.5}]
INSERT INTO people VALUES ?
-- plan: INSERT
-- affected: 1
-- ids: ["0193a4f2-7c1e-7d3a-9b2e-000000000006"]

-- case: an array of documents from a placeholder
-- params: [[{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000007","name":"P1"},{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000008","name":"P2"}]]
INSERT INTO people VALUES ?
-- plan: INSERT
-- affected: 2
-- ids: ["0193a4f2-7c1e-7d3a-9b2e-000000000007","0193a4f2-7c1e-7d3a-9b2e-000000000008"]

-- case: placeholder documents read back
SELECT name, n FROM people WHERE name = 'Param' OR name = 'P2'
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000006","name":"Param","n":1.5}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000008","name":"P2","n":null}

-- case: JSON strings may hold braces, brackets and quotes
INSERT INTO notes VALUES {"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000101","text":"a } b ] c ' d \" e {","nested":{"a":[1,{"b":null}],"e":{}}}
-- plan: INSERT
-- affected: 1
-- ids: ["0193a4f2-7c1e-7d3a-9b2e-000000000101"]

-- case: nested values round-trip
SELECT * FROM notes
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000101","text":"a } b ] c ' d \" e {","nested":{"a":[1,{"b":null}],"e":{}}}]

-- case: a mixed-case collection name is stored in lowercase
INSERT INTO Notes VALUES {"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000102","text":"second"};
-- plan: INSERT
-- affected: 1
-- ids: ["0193a4f2-7c1e-7d3a-9b2e-000000000102"]

-- case: both notes are in the one collection
SELECT text FROM notes
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000101","text":"a } b ] c ' d \" e {"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000102","text":"second"}

-- case: a dotted, hyphenated collection name
INSERT INTO eu-west.orders_2 VALUES {"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000201","pnr":"X"}
-- plan: INSERT
-- affected: 1
-- ids: ["0193a4f2-7c1e-7d3a-9b2e-000000000201"]

-- case: the dotted, hyphenated collection reads back
SELECT pnr FROM eu-west.orders_2
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000201","pnr":"X"}]

-- case: an _id that already exists is rejected
INSERT INTO people VALUES {"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","name":"again"}
-- error: ERR_DOCUMENT_ID_EXISTS _id 0193a4f2-7c1e-7d3a-9b2e-000000000001 already exists in people

-- case: one bad document in an array inserts nothing
INSERT INTO people VALUES [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000009","name":"new"},{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","name":"dup"}]
-- error: ERR_DOCUMENT_ID_EXISTS document 2 of 2: _id 0193a4f2-7c1e-7d3a-9b2e-000000000002 already exists in people

-- case: nothing of the failed statement was stored
SELECT COUNT(*) FROM people WHERE name = 'new' OR name = 'dup'
-- plan: COLLECTION_SCAN + AGGREGATE
-- rows: [{"COUNT(*)":0}]

-- case: the same new _id twice in one statement inserts nothing
INSERT INTO people VALUES [{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000a","name":"twin"},{"_id":"0193a4f2-7c1e-7d3a-9b2e-00000000000a","name":"twin"}]
-- error: ERR_DOCUMENT_ID_EXISTS 0193a4f2-7c1e-7d3a-9b2e-00000000000a

-- case: no twin was stored
SELECT COUNT(*) FROM people WHERE name = 'twin'
-- plan: COLLECTION_SCAN + AGGREGATE
-- rows: [{"COUNT(*)":0}]

-- case: an _id that is not a UUID
INSERT INTO people VALUES {"_id":"not-a-uuid","name":"x"}
-- error: ERR_DOCUMENT_ID_INVALID _id "not-a-uuid" is not a UUID

-- case: a document must be a JSON object
INSERT INTO people VALUES [1]
-- error: ERR_DOCUMENT_INVALID

-- case: VALUES needs a JSON document
INSERT INTO people VALUES 'x'
-- error: ERR_SQL_SYNTAX expected a JSON document ({…}), a JSON array of documents or ? after VALUES, found ''x'' at 1:27

-- case: invalid JSON is a syntax error at the literal
INSERT INTO people VALUES {"name": }
-- error: ERR_SQL_SYNTAX invalid JSON literal

-- case: an unterminated JSON literal
INSERT INTO people VALUES {"name": "x"
-- error: ERR_SQL_SYNTAX unterminated JSON literal at 1:27

-- case: INSERT needs INTO
INSERT people VALUES {"name":"x"}
-- error: ERR_SQL_SYNTAX expected INTO after INSERT, found 'people' at 1:8

-- case: INSERT needs VALUES
INSERT INTO people {"name":"x"}
-- error: ERR_SQL_SYNTAX expected VALUES after INSERT INTO people, found '{"name":"x"}' at 1:20

-- case: a collection name with a character outside the naming rules
INSERT INTO bad$name VALUES {"a":1}
-- error: ERR_COLLECTION_NAME_INVALID collection name 'bad$name' contains '$'

-- case: the placeholder count must match
INSERT INTO people VALUES ?
-- error: ERR_SQL_PARAM the statement has 1 placeholder(s) but 0 parameter(s) were given

-- case: the count of every document inserted so far
SELECT COUNT(*) FROM people
-- plan: COLLECTION_SCAN + AGGREGATE
-- rows: [{"COUNT(*)":12}]
