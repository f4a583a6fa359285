--- Projection (spec §4 SELECT, DESIGN §4): rows keep _id plus one key per listed path, named
--- by the path text as written ("passenger.lastName", "flights[0].from"); a missing value is
--- null; AS renames a column; objects and arrays are projected whole. [*] is not allowed
--- outside index definitions.

-- load: bookings
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","pnr":"A1","passenger":{"firstName":"Ada","lastName":"Lovelace"},"flights":[{"from":"LHR","to":"JFK"},{"from":"JFK","to":"SFO"}],"tags":["vip","late"]}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","pnr":"B2","passenger":{"firstName":"Alan"},"flights":[{"from":"CDG"}],"tags":[]}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","pnr":"C3"}

-- case: nested paths are named as written; missing values are null
SELECT pnr, passenger.lastName FROM bookings
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","pnr":"A1","passenger.lastName":"Lovelace"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","pnr":"B2","passenger.lastName":null}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","pnr":"C3","passenger.lastName":null}

-- case: array elements by position, past the end is null
SELECT flights[0].from, flights[1].to FROM bookings
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","flights[0].from":"LHR","flights[1].to":"SFO"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","flights[0].from":"CDG","flights[1].to":null}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","flights[0].from":null,"flights[1].to":null}

-- case: a scalar array element
SELECT tags[1] FROM bookings
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","tags[1]":"late"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","tags[1]":null}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","tags[1]":null}

-- case: AS renames columns
SELECT pnr AS code, passenger.lastName AS last, flights[0].from AS origin FROM bookings WHERE pnr = 'A1'
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","code":"A1","last":"Lovelace","origin":"LHR"}]

-- case: an alias may be a quoted keyword or a string
SELECT pnr AS "from", passenger.firstName AS 'first name' FROM bookings WHERE pnr = 'B2'
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","from":"B2","first name":"Alan"}]

-- case: as is case-insensitive
SELECT pnr as code FROM bookings WHERE pnr = 'C3'
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","code":"C3"}]

-- case: the same path twice under two names
SELECT pnr, pnr AS again FROM bookings WHERE pnr = 'C3'
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","pnr":"C3","again":"C3"}]

-- case: objects and arrays are projected whole
SELECT passenger, tags FROM bookings WHERE pnr = 'A1'
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","passenger":{"firstName":"Ada","lastName":"Lovelace"},"tags":["vip","late"]}]

-- case: an array of objects is projected whole
SELECT flights FROM bookings WHERE pnr = 'B2'
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","flights":[{"from":"CDG"}]}]

-- case: _id in the list is the document id once
SELECT _id, pnr FROM bookings WHERE pnr = 'B2'
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","pnr":"B2"}]

-- case: a path that no document has is null everywhere
SELECT nosuch.field FROM bookings
-- plan: COLLECTION_SCAN
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","nosuch.field":null}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","nosuch.field":null}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","nosuch.field":null}

-- case: a field step into an array is missing (use a position)
SELECT flights.from FROM bookings WHERE pnr = 'A1'
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","flights.from":null}]

-- case: a WHERE on an array element
SELECT pnr FROM bookings WHERE flights[1].from = 'JFK'
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","pnr":"A1"}]

-- case: [*] is not allowed in a select list
SELECT tags[*] FROM bookings
-- error: ERR_SQL_SYNTAX invalid JSON path 'tags[*]': [*] is only allowed in index definitions; name a position such as [0] at 1:8

-- case: a negative position is not a path
SELECT tags[-1] FROM bookings
-- error: ERR_SQL_SYNTAX invalid JSON path 'tags[-1]': '[-1]' is not an array position (use [0], [1], … or [*]) at 1:8

-- case: a path cannot end with a dot
SELECT passenger. FROM bookings
-- error: ERR_SQL_SYNTAX invalid JSON path 'passenger.': it ends with a dot at 1:8

-- case: AS needs a name
SELECT pnr AS FROM bookings
-- error: ERR_SQL_SYNTAX expected a name after AS, found 'FROM' at 1:15

-- case: a trailing comma in the select list
SELECT pnr, FROM bookings
-- error: ERR_SQL_SYNTAX expected a field path in the select list, found 'FROM' at 1:13
