--- SELECT basics: *, field lists, keyword case, trailing ';', comments, quoted identifiers,
--- collection-name case folding, statements over several lines, numbers and strings.
--- Without ORDER BY a collection scan returns documents in _id order.

-- load: orders
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","pnr":"A1","status":"confirmed","pax":2,"fare":{"total":120.5,"currency":"EUR"}}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","pnr":"B2","status":"cancelled","pax":1,"fare":{"total":80,"currency":"EUR"}}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","pnr":"C3","status":"confirmed","pax":3,"fare":{"total":300,"currency":"USD"},"note":"O'Brien"}

-- load: kw
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000101","select":1,"order":{"by":"x"},"from":"here"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000102","select":2,"order":{"by":"y"}}

-- setup
INSERT INTO emptied VALUES {"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000201","x":1}
DELETE FROM emptied

-- case: SELECT * returns whole documents with nested fields, in _id order
SELECT * FROM orders
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","pnr":"A1","status":"confirmed","pax":2,"fare":{"total":120.5,"currency":"EUR"}}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","pnr":"B2","status":"cancelled","pax":1,"fare":{"total":80,"currency":"EUR"}}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","pnr":"C3","status":"confirmed","pax":3,"fare":{"total":300,"currency":"USD"},"note":"O'Brien"}

-- case: a field list keeps _id plus one key per listed path
SELECT pnr, status FROM orders WHERE pax = 2
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","pnr":"A1","status":"confirmed"}]

-- case: keywords are case-insensitive
select pnr from orders where status = 'cancelled'
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","pnr":"B2"}]

-- case: mixed-case keywords
SeLeCt pnr FrOm orders WhErE pax = 3
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","pnr":"C3"}]

-- case: a trailing semicolon is allowed
SELECT pnr FROM orders WHERE pax = 3;
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","pnr":"C3"}]

-- case: collection names are folded to lowercase
SELECT pnr FROM ORDERS WHERE pnr = 'A1'
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","pnr":"A1"}]

-- case: field names are case-sensitive (PNR is missing, so null)
SELECT PNR FROM orders WHERE pnr = 'A1'
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","PNR":null}]

-- case: a statement may span several lines
SELECT pnr,
  status
FROM orders
WHERE pax >= 2
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","pnr":"A1","status":"confirmed"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","pnr":"C3","status":"confirmed"}

-- case: a -- comment runs to the end of its line
SELECT pnr FROM orders -- the comment: WHERE pax = 99
WHERE pax = 1
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","pnr":"B2"}]

-- case: a nested path in WHERE
SELECT pnr FROM orders WHERE fare.currency = 'USD'
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","pnr":"C3"}]

-- case: numbers compare numerically: 80 = 80.0 = 8e1
SELECT pnr FROM orders WHERE fare.total = 80.0 OR fare.total = 8e1
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","pnr":"B2"}]

-- case: negative number literals
SELECT pnr FROM orders WHERE pax > -1 AND pax < 2
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","pnr":"B2"}]

-- case: '' escapes a quote inside a string literal
SELECT pnr FROM orders WHERE note = 'O''Brien'
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","pnr":"C3"}]

-- case: _id can be compared like any field
SELECT pnr FROM orders WHERE _id = '0193a4f2-7c1e-7d3a-9b2e-000000000002'
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","pnr":"B2"}]

-- case: double-quoted identifiers name fields that clash with keywords
SELECT "select", "order".by FROM kw WHERE "select" = 1
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000101","select":1,"order.by":"x"}]

-- case: a quoted keyword works in WHERE and in nested paths
SELECT "from" FROM kw WHERE "order".by = 'y'
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000102","from":null}]

-- case: an unquoted keyword is not a field name
SELECT select FROM kw
-- error: ERR_SQL_SYNTAX expected a field path in the select list, found 'select': 'select' is a keyword; write "select" in double quotes to use it as a name at 1:8

-- case: an existing but empty collection gives no rows (not an error)
SELECT * FROM emptied
-- plan: COLLECTION_SCAN
-- rows: []

-- case: WHERE that matches nothing gives no rows
SELECT * FROM orders WHERE pnr = 'ZZ'
-- plan: COLLECTION_SCAN
-- rows: []
-- count: 0

-- case: the count is the number of rows
SELECT pnr FROM orders WHERE status = 'confirmed'
-- plan: COLLECTION_SCAN
-- count: 2
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","pnr":"A1"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","pnr":"C3"}
