--- GROUP BY (spec §4 rule 8, DESIGN §4): one or more fields; groups by typed value (1 and '1'
--- differ; null and missing are one group, null); each result row carries the grouping columns
--- (under their alias when the select list renames them) and every aggregate. Plain columns must
--- be grouping columns. An empty input gives no groups.

-- load: tickets
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000001","status":"open","prio":1,"team":"a","hours":2}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000002","status":"open","prio":2,"team":"b","hours":3}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000003","status":"closed","prio":1,"team":"a","hours":5}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000004","status":"open","prio":1,"team":"a","hours":1}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000005","status":null,"prio":"1","team":"b","hours":4}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000006","prio":1,"team":"b"}

-- case: GROUP BY one field; null and missing form one group
SELECT status, COUNT(*) FROM tickets GROUP BY status
-- plan: COLLECTION_SCAN + AGGREGATE
-- unordered
-- rows:
{"status":"open","COUNT(*)":3}
{"status":"closed","COUNT(*)":1}
{"status":null,"COUNT(*)":2}

-- case: GROUP BY with ORDER BY on the grouping column
SELECT status, COUNT(*) FROM tickets GROUP BY status ORDER BY status
-- plan: COLLECTION_SCAN + AGGREGATE
-- rows:
{"status":null,"COUNT(*)":2}
{"status":"closed","COUNT(*)":1}
{"status":"open","COUNT(*)":3}

-- case: GROUP BY with ORDER BY DESC
SELECT status, COUNT(*) FROM tickets GROUP BY status ORDER BY status DESC
-- plan: COLLECTION_SCAN + AGGREGATE
-- rows:
{"status":"open","COUNT(*)":3}
{"status":"closed","COUNT(*)":1}
{"status":null,"COUNT(*)":2}

-- case: GROUP BY several fields; 1 and '1' are different groups
SELECT team, prio, COUNT(*), SUM(hours) FROM tickets GROUP BY team, prio
-- plan: COLLECTION_SCAN + AGGREGATE
-- unordered
-- rows:
{"team":"a","prio":1,"COUNT(*)":3,"SUM(hours)":8}
{"team":"b","prio":2,"COUNT(*)":1,"SUM(hours)":3}
{"team":"b","prio":"1","COUNT(*)":1,"SUM(hours)":4}
{"team":"b","prio":1,"COUNT(*)":1,"SUM(hours)":null}

-- case: GROUP BY several fields ordered by both
SELECT team, prio, COUNT(*) FROM tickets GROUP BY team, prio ORDER BY team DESC, prio
-- plan: COLLECTION_SCAN + AGGREGATE
-- rows:
{"team":"b","prio":1,"COUNT(*)":1}
{"team":"b","prio":2,"COUNT(*)":1}
{"team":"b","prio":"1","COUNT(*)":1}
{"team":"a","prio":1,"COUNT(*)":3}

-- case: the grouping columns are in every row even when not listed
SELECT COUNT(*) FROM tickets GROUP BY team
-- plan: COLLECTION_SCAN + AGGREGATE
-- unordered
-- rows: [{"team":"a","COUNT(*)":3},{"team":"b","COUNT(*)":3}]

-- case: every aggregate per group
SELECT team, AVG(hours), MIN(hours), MAX(hours), COUNT(hours) FROM tickets GROUP BY team ORDER BY team
-- plan: COLLECTION_SCAN + AGGREGATE
-- rows:
{"team":"a","AVG(hours)":2.6666666666666665,"MIN(hours)":1,"MAX(hours)":5,"COUNT(hours)":3}
{"team":"b","AVG(hours)":3.5,"MIN(hours)":3,"MAX(hours)":4,"COUNT(hours)":2}

-- case: aliases rename the grouping column and the aggregates
SELECT team AS t, COUNT(*) AS n FROM tickets GROUP BY team
-- plan: COLLECTION_SCAN + AGGREGATE
-- unordered
-- rows: [{"t":"a","n":3},{"t":"b","n":3}]

-- case: ORDER BY the alias of a grouping column
SELECT team AS t, COUNT(*) AS n FROM tickets GROUP BY team ORDER BY t DESC
-- plan: COLLECTION_SCAN + AGGREGATE
-- rows: [{"t":"b","n":3},{"t":"a","n":3}]

-- case: ORDER BY the path of an aliased grouping column
SELECT team AS t, COUNT(*) AS n FROM tickets GROUP BY team ORDER BY team DESC
-- plan: COLLECTION_SCAN + AGGREGATE
-- rows: [{"t":"b","n":3},{"t":"a","n":3}]

-- case: GROUP BY after WHERE
SELECT team, COUNT(*) FROM tickets WHERE hours > 1 GROUP BY team ORDER BY team
-- plan: COLLECTION_SCAN + AGGREGATE
-- rows: [{"team":"a","COUNT(*)":2},{"team":"b","COUNT(*)":2}]

-- case: GROUP BY over an empty input gives no rows
SELECT team, COUNT(*) FROM tickets WHERE status = 'nope' GROUP BY team
-- plan: COLLECTION_SCAN + AGGREGATE
-- rows: []

-- case: GROUP BY with LIMIT and OFFSET
SELECT team, COUNT(*) FROM tickets GROUP BY team ORDER BY team LIMIT 1 OFFSET 1
-- plan: COLLECTION_SCAN + AGGREGATE
-- rows: [{"team":"b","COUNT(*)":3}]

-- case: GROUP BY a field that only some documents have
SELECT hours, COUNT(*) FROM tickets WHERE team = 'b' GROUP BY hours ORDER BY hours
-- plan: COLLECTION_SCAN + AGGREGATE
-- rows:
{"hours":null,"COUNT(*)":1}
{"hours":3,"COUNT(*)":1}
{"hours":4,"COUNT(*)":1}

-- case: group by is case-insensitive
select team, count(*) from tickets group by team order by team
-- plan: COLLECTION_SCAN + AGGREGATE
-- rows: [{"team":"a","COUNT(*)":3},{"team":"b","COUNT(*)":3}]

-- case: SELECT * cannot be grouped
SELECT * FROM tickets GROUP BY team
-- error: ERR_SQL_INVALID SELECT * cannot be combined with GROUP BY; list the grouping columns and aggregates

-- case: a listed column must be a grouping column
SELECT team, status, COUNT(*) FROM tickets GROUP BY team
-- error: ERR_SQL_INVALID column 'status' must appear in GROUP BY or inside an aggregate such as COUNT(status)

-- case: GROUP needs BY
SELECT team, COUNT(*) FROM tickets GROUP team
-- error: ERR_SQL_SYNTAX expected BY after GROUP, found 'team' at 1:42

-- case: GROUP BY comes before ORDER BY
SELECT team, COUNT(*) FROM tickets ORDER BY team GROUP BY team
-- error: ERR_SQL_SYNTAX expected the end of the statement, found 'GROUP' at 1:50

-- setup
CREATE INDEX idx_status ON tickets (status)

-- case: GROUP BY over an index lookup
SELECT team, COUNT(*), SUM(hours) FROM tickets WHERE status = 'open' GROUP BY team ORDER BY team
-- plan: INDEX_SCAN(idx_status) + AGGREGATE
-- rows: [{"team":"a","COUNT(*)":2,"SUM(hours)":3},{"team":"b","COUNT(*)":1,"SUM(hours)":3}]

--- Objects compare by their members, not their order, as = does: one group for both orders.

-- load: prefs
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000101","user":"a","opts":{"lang":"no","theme":"dark"}}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000102","user":"b","opts":{"theme":"dark","lang":"no"}}
{"_id":"0193a4f2-7c1e-7d3a-9b2e-000000000103","user":"c","opts":{"theme":"light","lang":"no"}}

-- case: objects with the same members in another order are one group
SELECT opts, COUNT(*) AS n FROM prefs GROUP BY opts
-- plan: COLLECTION_SCAN + AGGREGATE
-- unordered
-- rows: [{"opts":{"lang":"no","theme":"dark"},"n":2},{"opts":{"lang":"no","theme":"light"},"n":1}]
