--- DISTINCT (spec §4 rule 4): it follows SELECT directly; the dedupe key is the projected row,
--- from which _id is omitted so duplicates collapse; SELECT DISTINCT * keeps every row (each has
--- its own _id); the plan gains "+ DISTINCT"; LIMIT is not pushed into the scan, so LIMIT n
--- gives n distinct rows. A missing value projects as null, so it collapses with null.

-- load: visits
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","city":"Oslo","country":"NO"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","city":"Oslo","country":"NO"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","city":"Bergen","country":"NO"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000004","city":"Lyon","country":"FR"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000005","city":null,"country":"FR"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000006","country":"FR"}

-- case: DISTINCT on one column drops _id and collapses duplicates
SELECT DISTINCT country FROM visits
-- plan: COLLECTION_SCAN + DISTINCT
-- unordered
-- rows: [{"country":"NO"},{"country":"FR"}]

-- case: DISTINCT on two columns; null and missing collapse
SELECT DISTINCT city, country FROM visits
-- plan: COLLECTION_SCAN + DISTINCT
-- unordered
-- rows:
{"city":"Oslo","country":"NO"}
{"city":"Bergen","country":"NO"}
{"city":"Lyon","country":"FR"}
{"city":null,"country":"FR"}

-- case: SELECT DISTINCT * keeps every row
SELECT DISTINCT * FROM visits
-- plan: COLLECTION_SCAN + DISTINCT
-- rows:
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","city":"Oslo","country":"NO"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","city":"Oslo","country":"NO"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","city":"Bergen","country":"NO"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000004","city":"Lyon","country":"FR"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000005","city":null,"country":"FR"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000006","country":"FR"}

-- case: LIMIT is not pushed into the scan: LIMIT 2 gives two distinct rows (the first two documents are both Oslo)
SELECT DISTINCT city FROM visits LIMIT 2
-- plan: COLLECTION_SCAN + DISTINCT
-- rows: [{"city":"Oslo"},{"city":"Bergen"}]

-- case: OFFSET counts distinct rows
SELECT DISTINCT country FROM visits ORDER BY country LIMIT 1 OFFSET 1
-- plan: COLLECTION_SCAN + DISTINCT
-- rows: [{"country":"NO"}]

-- case: DISTINCT with ORDER BY
SELECT DISTINCT country FROM visits ORDER BY country
-- plan: COLLECTION_SCAN + DISTINCT
-- rows: [{"country":"FR"},{"country":"NO"}]

-- case: DISTINCT with ORDER BY DESC on a column that is not projected
SELECT DISTINCT country FROM visits ORDER BY city DESC
-- plan: COLLECTION_SCAN + DISTINCT
-- rows: [{"country":"NO"},{"country":"FR"}]

-- case: DISTINCT with WHERE
SELECT DISTINCT city FROM visits WHERE country = 'NO'
-- plan: COLLECTION_SCAN + DISTINCT
-- unordered
-- rows: [{"city":"Oslo"},{"city":"Bergen"}]

-- case: DISTINCT over an aggregate keeps the grouping column, so groups stay apart
SELECT DISTINCT COUNT(*) FROM visits GROUP BY country
-- plan: COLLECTION_SCAN + AGGREGATE + DISTINCT
-- unordered
-- rows: [{"country":"NO","COUNT(*)":3},{"country":"FR","COUNT(*)":3}]

-- case: DISTINCT over a lone aggregate is one row
SELECT DISTINCT COUNT(*) FROM visits
-- plan: COLLECTION_SCAN + AGGREGATE + DISTINCT
-- rows: [{"COUNT(*)":6}]

-- setup
CREATE INDEX idx_country ON visits (country)

-- case: DISTINCT through an index: the suffix follows the access path
SELECT DISTINCT city FROM visits WHERE country = 'NO'
-- plan: INDEX_SCAN(idx_country) + DISTINCT
-- unordered
-- rows: [{"city":"Oslo"},{"city":"Bergen"}]

-- case: DISTINCT through an index with LIMIT still gives distinct rows
SELECT DISTINCT city FROM visits WHERE country = 'NO' LIMIT 2
-- plan: INDEX_SCAN(idx_country) + DISTINCT
-- unordered
-- rows: [{"city":"Oslo"},{"city":"Bergen"}]

-- case: DISTINCT must follow SELECT directly
SELECT city DISTINCT FROM visits
-- error: ERR_SQL_SYNTAX expected FROM after the select list, found 'DISTINCT' at 1:13

-- case: distinct is case-insensitive
select distinct country from visits where country = 'FR'
-- plan: INDEX_SCAN(idx_country) + DISTINCT
-- rows: [{"country":"FR"}]

--- Objects compare by their members, not their order: = sees {"lang":"no","theme":"dark"}
--- and {"theme":"dark","lang":"no"} as equal, so DISTINCT keeps one of them.

-- load: prefs
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000101","user":"a","opts":{"lang":"no","theme":"dark"}}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000102","user":"b","opts":{"theme":"dark","lang":"no"}}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000103","user":"c","opts":{"theme":"light","lang":"no"}}

-- case: objects with the same members in another order are one DISTINCT value
SELECT DISTINCT opts FROM prefs
-- plan: COLLECTION_SCAN + DISTINCT
-- unordered
-- rows: [{"opts":{"lang":"no","theme":"dark"}},{"opts":{"lang":"no","theme":"light"}}]
