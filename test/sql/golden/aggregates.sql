--- Aggregates (spec §4 rule 7, DESIGN §4): COUNT(*), COUNT(path) (non-null values), SUM, AVG,
--- MIN, MAX, freely combined; the result key is the normalised expression text (COUNT(*),
--- SUM(amount)) or the AS alias; SUM of integers stays an integer; SUM and AVG skip non-numbers;
--- an empty input gives COUNT 0 and the others null, in one ordinary row; MIN and MAX use the
--- total order of DESIGN §3. The plan gains "+ AGGREGATE".

-- load: sales
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","region":"N","amount":10,"qty":1}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","region":"N","amount":20.5,"qty":2}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","region":"S","amount":"30","qty":3}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000004","region":"S","amount":null,"qty":4}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000005","region":"S"}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000006","region":"E","amount":5,"qty":5,"meta":{"w":2}}

-- setup
INSERT INTO empty VALUES {"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000101","x":1}
DELETE FROM empty

-- case: COUNT(*) counts rows
SELECT COUNT(*) FROM sales
-- plan: COLLECTION_SCAN + AGGREGATE
-- rows: [{"COUNT(*)":6}]

-- case: COUNT(path) counts non-null values (a string counts; null and missing do not)
SELECT COUNT(amount) FROM sales
-- plan: COLLECTION_SCAN + AGGREGATE
-- rows: [{"COUNT(amount)":4}]

-- case: SUM skips non-numbers
SELECT SUM(amount) FROM sales
-- plan: COLLECTION_SCAN + AGGREGATE
-- rows: [{"SUM(amount)":35.5}]

-- case: SUM of integers is an integer
SELECT SUM(qty) FROM sales
-- plan: COLLECTION_SCAN + AGGREGATE
-- rows: [{"SUM(qty)":15}]

-- case: AVG divides by the number of numeric values
SELECT AVG(amount) FROM sales
-- plan: COLLECTION_SCAN + AGGREGATE
-- rows: [{"AVG(amount)":11.833333333333334}]

-- case: AVG of integers may be fractional
SELECT AVG(qty) FROM sales WHERE region = 'N'
-- plan: COLLECTION_SCAN + AGGREGATE
-- rows: [{"AVG(qty)":1.5}]

-- case: every aggregate in one list, in list order
SELECT COUNT(*), COUNT(qty), SUM(qty), AVG(qty), MIN(qty), MAX(qty) FROM sales
-- plan: COLLECTION_SCAN + AGGREGATE
-- rows: [{"COUNT(*)":6,"COUNT(qty)":5,"SUM(qty)":15,"AVG(qty)":3,"MIN(qty)":1,"MAX(qty)":5}]

-- case: MIN and MAX of strings
SELECT MIN(region), MAX(region) FROM sales
-- plan: COLLECTION_SCAN + AGGREGATE
-- rows: [{"MIN(region)":"E","MAX(region)":"S"}]

-- case: MIN and MAX over mixed types follow the total order (numbers < strings); null and missing are skipped
SELECT MIN(amount), MAX(amount) FROM sales
-- plan: COLLECTION_SCAN + AGGREGATE
-- rows: [{"MIN(amount)":5,"MAX(amount)":"30"}]

-- case: keys are normalised: upper-case function, no spaces
select count(*), sum( amount ), min (qty) from sales
-- plan: COLLECTION_SCAN + AGGREGATE
-- rows: [{"COUNT(*)":6,"SUM(amount)":35.5,"MIN(qty)":1}]

-- case: a nested path inside an aggregate
SELECT SUM(meta.w), COUNT(meta.w) FROM sales
-- plan: COLLECTION_SCAN + AGGREGATE
-- rows: [{"SUM(meta.w)":2,"COUNT(meta.w)":1}]

-- case: AS renames aggregate columns
SELECT COUNT(*) AS n, SUM(amount) AS total FROM sales
-- plan: COLLECTION_SCAN + AGGREGATE
-- rows: [{"n":6,"total":35.5}]

-- case: aggregates over the rows WHERE keeps
SELECT COUNT(*), COUNT(amount), SUM(qty) FROM sales WHERE region = 'S'
-- plan: COLLECTION_SCAN + AGGREGATE
-- rows: [{"COUNT(*)":3,"COUNT(amount)":1,"SUM(qty)":7}]

-- case: SUM and AVG with no numeric value are null
SELECT SUM(amount), AVG(amount) FROM sales WHERE region = 'S'
-- plan: COLLECTION_SCAN + AGGREGATE
-- rows: [{"SUM(amount)":null,"AVG(amount)":null}]

-- case: empty input: COUNT is 0 and the others are null, in one row
SELECT COUNT(*), COUNT(amount), SUM(amount), AVG(amount), MIN(amount), MAX(amount) FROM sales WHERE region = 'X'
-- plan: COLLECTION_SCAN + AGGREGATE
-- rows: [{"COUNT(*)":0,"COUNT(amount)":0,"SUM(amount)":null,"AVG(amount)":null,"MIN(amount)":null,"MAX(amount)":null}]

-- case: a lone COUNT(*) over an empty collection is an ordinary row
SELECT COUNT(*) FROM empty
-- plan: COLLECTION_SCAN + AGGREGATE
-- rows: [{"COUNT(*)":0}]

-- case: a field named like an aggregate, without parentheses, is a path
SELECT count FROM sales WHERE region = 'E'
-- plan: COLLECTION_SCAN
-- rows: [{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000006","count":null}]

-- case: only COUNT takes *
SELECT SUM(*) FROM sales
-- error: ERR_SQL_SYNTAX SUM(*) is not allowed; name a path, found '*' at 1:12

-- case: an aggregate needs a closing parenthesis
SELECT COUNT(amount FROM sales
-- error: ERR_SQL_SYNTAX expected ')' to close COUNT(, found 'FROM' at 1:21

-- case: an aggregate takes a path, not a value
SELECT SUM(1) FROM sales
-- error: ERR_SQL_SYNTAX expected a field path inside SUM(), found '1' at 1:12

-- case: a plain column next to an aggregate needs GROUP BY
SELECT region, COUNT(*) FROM sales
-- error: ERR_SQL_INVALID column 'region' must appear in GROUP BY or inside an aggregate such as COUNT(region)

-- setup
CREATE INDEX idx_region ON sales (region)

-- case: an aggregate over an index lookup
SELECT SUM(amount), COUNT(*) FROM sales WHERE region = 'N'
-- plan: INDEX_SCAN(idx_region) + AGGREGATE
-- rows: [{"SUM(amount)":30.5,"COUNT(*)":2}]

-- case: an aggregate over an index range
SELECT MAX(amount) FROM sales WHERE region > 'F'
-- plan: INDEX_RANGE_SCAN(idx_region) + AGGREGATE
-- rows: [{"MAX(amount)":"30"}]
