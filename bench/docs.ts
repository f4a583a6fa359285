/**
 * Renders docs/benchmarks.md from bench/results/latest.json (a full run) and, when present,
 * bench/results/scale.json: the method, the machine, every figure and the targets of
 * issue 13, judged from the JSON when the page is written, then bench/misses.md (what was
 * tried for each missed target, by hand). The page is generated; edit these, not the page.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import { DOCDB_SQL } from './embedded/system.js';
import { DIRS } from './machine.js';
import { PROBE_SLOWER_MAX, probeLine } from './probe.js';
import { formatMs, formatRate, formatRatio } from './measure.js';
import { QUIET_WAIT_SECONDS_DEFAULT, SCALE_MODE_ABOVE_DOCS } from './options.js';
import {
  busyNote,
  judgeTargets,
  loadRatioOf,
  QUIET_LOAD_MAX,
  type Report,
  ratioPrefix,
  SYSTEM_ORDER,
  systemTitle,
} from './report.js';
import type { ScaleReport } from './scale.js';
import { type Section, WORKLOADS, workloadInfo } from './workloads.js';

/** A results file, or undefined when there is none yet. */
export function readJson<T>(file: string): T | undefined {
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as T) : undefined;
}

const METHOD = `## Method

- **Data.** One seeded generator (\`bench/data.ts\`) makes airline orders of about 520 B of
  JSON: a unique \`pnr\`, a \`status\` (4 values), 1–2 passengers, 1–2 flight segments, a fare
  and a payment. Document *i* depends only on *i*, so every system gets the same documents
  (with the same UUIDv7 \`_id\`) and the load workers can make them without sharing memory.
- **Indexes.** The same five on every system: unique \`pnr\`, \`status\`,
  \`passengers[*].lastName\`, \`flights[*].from\`, \`fare.total\`, all created before the load.
- **Embedded peers** (same process as the harness, workloads 1–8):
  - *docdb*: \`collection.insertMany\` for the load, \`db.query(sql, params)\` for the rest,
    run from the compiled package in \`dist/\` (\`npm run bench\` builds it first), as
    applications run it.
  - *SQLite* (better-sqlite3): \`orders(id INTEGER PRIMARY KEY, doc TEXT)\` of JSON text, WAL
    with \`synchronous=FULL\` (each commit is fsynced, durable like docdb), other settings at
    SQLite's defaults. Scalar paths have expression indexes on \`json_extract(doc, '$.path')\`.
    Multikey paths cannot be an expression index in SQLite, so each is a side table
    \`(value, order_id)\` with that pair as its primary key (WITHOUT ROWID), filled and cleaned
    by triggers that read the document with \`json_each\`, inside the same transaction.
    Documents come back through \`JSON.parse\`, as docdb hands back objects.
  - *NeDB* (\`@seald-io/nedb\`): a persistent datastore with \`ensureIndex\` on the five paths.
    It has no SQL, GROUP BY or JOIN: those are a find plus JavaScript, as its users write
    them. Its appends are **not fsynced**, so its writes are not durable like the others'.
- **Served peers** (workload 9; each server in its own process, load from wrk or
  autocannon in another, below):
  - *docdb*: \`startNode\` on the file the embedded phase loaded (REST API of docs/rest.md).
  - *PostgreSQL* from Debian: a private cluster initialised by the harness in a temp dir,
    127.0.0.1 on a free port, default settings and durability (\`fsync\`, synchronous commit);
    \`orders(id uuid PRIMARY KEY, doc jsonb)\` with B-tree expression indexes on the scalar
    paths and GIN indexes on \`jsonb_path_query_array(doc, '$.passengers[*].lastName')\` and
    \`…'$.flights[*].from'\`. It is served by the same Fastify as the ceiling with the
    handlers an application would write over a \`pg\` pool of 8 connections: prepared
    statements returning \`doc::text\` (no JSON parse in Node), bulk insert by
    \`COPY … FROM STDIN\` (pg-copy-streams), streaming through a cursor fetched 1,000 rows at
    a time.
  - *HTTP ceiling*: a bare Fastify server answering each route with a constant body of
    docdb's size (the document, the query answer, the 1,000 ids of a bulk answer, the stream
    of as many documents). No server of this machine can answer faster.
- **Method.** A warm-up of every workload on every system (a 10,000-document load into a
  scratch store for workload 1), then rounds in which the systems take turns (A B C, A B C,
  …) with the same query parameters. Workload 1 loads a fresh store per round; the last
  round's stores serve the rest. Reads run for a time box per system per round; update and
  delete run a fixed count of single durable statements, one at a time. Before any read is
  timed, each runs on every system with the same parameters and the row counts must agree.
  Served workloads: 32 connections for the point requests, 8 for bulk, 1 for the stream.
  Figures are medians over the rounds; the ratio is docdb/peer per round, then its median
  (above 1 means docdb is faster).
- **Load generators** (issue 25). The point rows (GET by \`_id\`, point \`/query\` by text and
  by handle, the every-core row, the reads of the reads-while-writing row, and in the cluster
  phase the router point lookup and the node beside it, so both sides of that ratio have the
  same generator) are driven by wrk (Debian's \`wrk\`, 4.1.0 here) with one thread
  (\`wrk -t1 -c32\`), sending the row's seeded key sequence in order from a table of 100,000
  requests per second of the run, more than any row answers, so no run comes back to its
  first key (the previous run of this page cycled the first 50,000 of them, about a fifth of
  the documents, a warmer set than autocannon's draws over all of them). The other loads (the stream, bulk inserts, the
  writers, the router's GROUP BY, the replicated loads) are autocannon's, a Node process, as
  every row was before. Why: autocannon needs about a core of its own to drive ~34,000
  requests/s, so on this 2-core machine it capped the point rows. Measured by hand on
  2026-11-27: the HTTP ceiling answered 34,000 GETs/s under autocannon and 50,000–56,000
  under \`wrk -t1 -c32\`; docdb's node with its two serving processes 17,000/s under
  autocannon and 25,000/s under wrk, against 18,000/s for one process under wrk. wrk still
  runs on the same 2 cores as the servers and takes its share of them. wrk takes whole
  seconds, so a quick run's time box of 1.5 s is rounded up to 2; its latencies are to the
  microsecond (shown floored to whole milliseconds, but for the reads-while-writing row), and
  it counts answers of status 400 and above as failed. Without wrk on PATH, autocannon drives
  the point rows too: the run says so when it begins and in its notes. A run recorded before
  this change (no wrk in its Packages line) was driven by autocannon throughout.
- **Caches.** Each system keeps what it keeps in normal use: SQLite and PostgreSQL their page
  caches, docdb its file in the operating system's page cache (LMDB maps it; the loaded file
  fits in memory here, as SQLite's and PostgreSQL's do), and the selections of whole scans (the scalar values at the paths a statement
  reads, kept by the writing process from the second scan of the same paths on, and brought
  up to every commit from the documents it wrote; docs/ARCHITECTURE.md). The rows marked
  *repeated, cache hit* run the unindexed filter and the GROUP BY again and again with no
  write in between. The rows marked *after a write* are what an application that writes
  between its reports sees: before every repetition, on every system alike, one durable
  single-document write to the same collection (an UPDATE of the status of a random order,
  the statement of the UPDATE row), whose time is not counted in the read's; docdb's commit
  of that write also brings the kept selections up to it (decoding the written document in
  the kept paths), inside the untimed write. So after the warm-up both kinds of row read the
  kept selections, not the documents, as any application that repeats a report does; a
  report that runs once, or less often than every 10 minutes (a selection no scan read for
  that long is dropped at the next write), reads the file. Issue 13's targets hold for the after-a-write rows.
  The scan column of scale mode is a first scan (it follows a load).
  Besides these, docdb keeps each statement's parse and plan by its text, with the plan's
  reusable evaluation cursor and field selection, the WHERE plans of UPDATE and DELETE by
  statement and collection definition (planned again after CREATE or DROP INDEX), the plans
  of embedded finds by collection definition, and the prepared handles of \`POST /query/prepare\` (up to 1,000 per
  process, the same statement cache; \`DocdbClient\` uses them from a statement's second run)
  (every caller gets them, as SQLite's and PostgreSQL's prepared statements do here); each
  process of a node keeps its own (a reader process's read-only view keeps no selections);
  each run binds its own parameters and reads the data, so no result is
  kept. No result or document is cached, and no path is taken only by the benchmark.
- **Concurrent durable writers** (issue 13). 8 clients, each alternating a single-document
  insert of a new order and an UPDATE of the status of a random existing order (half and
  half), for a time box, on fresh stores loaded with the same documents as the embedded
  phase. Every write is its own durable commit. Embedded: docdb is 8 concurrent async
  callers in one process (its group commit may put several callers' writes in one fsync);
  SQLite is 8 worker threads, each with its own connection (WAL, \`synchronous=FULL\`,
  \`busy_timeout\` 10 s), so its writers take turns for its one write lock; PostgreSQL is 8
  connections from the harness process, each committing per write (autocommit, default
  \`synchronous_commit\`). Served: docdb's REST API (\`POST /collections/orders\` and
  \`POST /query\` with the UPDATE) against the PostgreSQL Fastify server with the same two
  routes over its pool of 8, driven by autocannon with 8 connections.
- **Every core** (issue 25). On the served docdb node, after the point rows and before bulk
  (the same documents as the GET by \`_id\` row): that row's reads (32 connections, random
  ids) on the node as served everywhere on this page, with \`--serve-processes\` unset (the
  cores: the first process writes and serves, the others serve reads; ARCHITECTURE.md),
  then on the same file restarted with \`--serve-processes 1\` (*docdb, one process*), a
  warm-up and the rounds each. The load generator (wrk) runs on the same cores, so the
  node's processes share them with it: on 2 cores the row measures what the second process
  gains beside a load generator that needs CPU too. Under autocannon, which needs a core of
  its own, the row was 0.62×; by hand under wrk, 25,000 against 18,000 GETs/s (about 1.4×).
- **Reads while writing** (issue 22). On the served docdb node, after its other rows (its
  writes grow docdb's collection alone): the GET by \`_id\` row's reads (32 connections,
  random ids of the same documents, the same time box, from wrk) once with nothing else
  running (*docdb, no writers running*) and once while 8 durable writers run against the
  same node (*docdb*): the served writers' \`POST /collections/orders\` and \`POST /query\` UPDATE in
  turn, from another autocannon process with 8 connections, each waiting for its answer
  before its next. The reads begin once a write has been answered, and the writers stop when
  the reads end. Both halves of a round read the same ids. The latencies of this row are each
  answer's own time, not rounded to whole milliseconds; its ratio is the p99 with writers over
  the p99 without, per round, then its median (lower is better; the target is at most 2×). A
  failed read or write stops the run (it would leave its latency out).
- **Replicated write path and router path** (issue 13). Every node is a \`startNode\` process
  as in the served phase. Replication: a single node, a leader with one follower
  (\`syncFollowers\` 0) and a leader with one follower and \`syncFollowers\` 1, each with the
  five indexes, take turns loading the same new documents by REST bulk requests (1,000 per
  request, 8 connections) through the node or the leader; the ratio is leader/single node. At the end each
  follower must hold every document its leader took.
  Router: \`docdb router\` over three shard nodes (\`orders\` hash-sharded on \`pnr\`),
  against one node holding all the documents; both loaded with the same documents through
  REST bulk requests. A point lookup by \`pnr\` (32 connections, from wrk on both sides) and
  a GROUP BY over every shard (4 connections, repeated, so each node reads its selection)
  through the router against the node directly; the ratio is router/node. Before timing,
  both answer the same rows. A failed write or request in these workloads stops the run (it
  would flatter the rate).
  Cluster client (issue 25): the same point lookup by \`pnr\` from 32 concurrent async callers
  in one load process, each awaiting its answer before its next, through docdb's typed client:
  \`connectCluster(cluster.json)\` (\`docdb/client/cluster\`: the router's code in the caller's
  process, straight to the owning shard), against \`connect(url)\` with 32 connections to the
  node directly and to the router; the ratios are cluster client/node and cluster
  client/router. The load process shares the machine's cores with the nodes. Every answer
  must hold one row and the cluster client's plan must be one shard's.
- **Quiet machine.** The harness records the load average when a run begins and ends. A full
  or scale run first waits up to ${QUIET_WAIT_SECONDS_DEFAULT} s (\`--quiet-wait S\`) for the 1-minute load
  average to fall to ${QUIET_LOAD_MAX}, since the build before it is enough to make the machine busy. A run
  that began above ${QUIET_LOAD_MAX} prints a warning, and its page says its figures are not to
  be quoted: such a run is repeated on a quiet machine first. The load average cannot see a
  machine moved to another host: both runs of 2026-11-28 began quiet by it on an Intel Xeon
  where the page's run of the day before had an AMD EPYC, and every system in them ran
  20–50% slower. So every run also times the machine itself (\`bench/probe.ts\`, a few
  seconds: random reads over 512 MiB, where memory latency shows, and JSON round trips of one
  order, where the CPU shows) and keeps the rates with its results (the Machine section
  below, and the scale section's). A full or scale run on another CPU than the recorded run
  it replaces, or whose probe is more than ${Math.round(PROBE_SLOWER_MAX * 100)}% slower on either count, warns so
  on the console (a full run in its page's notes too); the probe itself spread by about 15%
  between runs a minute apart.
- **Honesty.** Every figure of the run is below, including the misses. A ratio is only
  comparable within one run on one machine.`;

function workloadTable(): string {
  const statements: Record<string, string> = {
    'bulk-load': '`insertMany` of 1,000 documents per call, durable commit each',
    'point-lookup': `\`${DOCDB_SQL.point}\``,
    'equality-limit': `\`${DOCDB_SQL.equality}\``,
    'range-limit': `\`${DOCDB_SQL.range}\` (a window holding ~1,000)`,
    'unindexed-filter': `\`${DOCDB_SQL.filter}\` ('CHD'), repeated with no write between`,
    'unindexed-filter-after-write': `the same, each after one untimed \`${DOCDB_SQL.update}\``,
    'group-by': `\`${DOCDB_SQL.groupBy}\`, repeated with no write between`,
    'group-by-after-write': `the same, each after one untimed \`${DOCDB_SQL.update}\``,
    join: `\`${DOCDB_SQL.join}\` (a window holding ~500)`,
    'update-by-key': `\`${DOCDB_SQL.update}\``,
    'delete-by-key': `\`${DOCDB_SQL.remove}\``,
    'rest-get-by-id': '`GET /collections/orders/{_id}`, random ids',
    'rest-query-point': '`POST /query` with the point lookup, random pnrs',
    'rest-query-point-prepared':
      "`POST /query` `{ handle, params }`: the point lookup by the handle `POST /query/prepare` answered once, random pnrs (what `DocdbClient.query` sends from a statement's second use)",
    'rest-bulk-insert': '`POST /collections/orders/bulk` of 1,000 new documents',
    'rest-stream-all': `\`POST /query?stream=true\` \`${DOCDB_SQL.streamAll}\`, NDJSON`,
    'rest-get-by-id-while-writing': `\`GET /collections/orders/{_id}\`, random ids, beside 8 connections of \`POST /collections/orders\` and \`POST /query\` \`${DOCDB_SQL.update}\`; the ratio is of the p99s`,
    'rest-get-by-id-every-core':
      '`GET /collections/orders/{_id}`, random ids, on the node with `--serve-processes` unset (the cores: 2 here) and then restarted with `--serve-processes 1`; the load generator (wrk) runs on the same 2 cores, so the default processes share them with it',
    'concurrent-writers': `8 callers: \`insert\` of a new order, \`${DOCDB_SQL.update}\`, alternately`,
    'rest-concurrent-writers': `8 connections: \`POST /collections/orders\`, \`POST /query\` \`${DOCDB_SQL.update}\`, alternately`,
    'replicated-bulk-load': '`POST /collections/orders/bulk` of 1,000 new documents to the leader',
    'replicated-bulk-load-sync':
      'the same, the leader waiting for its follower (`syncFollowers` 1)',
    'router-point-lookup': `\`POST /query\` \`${DOCDB_SQL.point}\`, random pnrs`,
    'router-group-by': `\`POST /query\` \`${DOCDB_SQL.groupBy}\``,
    'cluster-client-point-lookup': `\`query('${DOCDB_SQL.point}', [pnr])\`, random pnrs: \`connectCluster(cluster.json)\` against \`connect(url)\` to the node and to the router`,
  };
  const lines = ['| Workload | docdb statement | Unit |', '|---|---|---|'];
  for (const w of WORKLOADS) lines.push(`| ${w.title} | ${statements[w.id]} | ${w.unit} |`);
  return lines.join('\n');
}

function resultsTable(report: Report, section: Section): string {
  const ids = new Set(WORKLOADS.filter((w) => w.section === section).map((w) => w.id));
  const rows = report.results.filter((r) => ids.has(r.workload));
  const systems = SYSTEM_ORDER.filter((s) => rows.some((r) => r.system === s));
  if (systems.length === 0) return 'Not measured in this run.';
  const subject = section === 'cluster' ? 'subject' : 'docdb';
  const header = `| Workload | ${systems.map(systemTitle).join(' | ')} | ${subject}/peer (median) |`;
  const lines = [header, `|---|${systems.map(() => '---:|').join('')}---|`];
  for (const w of WORKLOADS) {
    if (!ids.has(w.id)) continue;
    if (!rows.some((r) => r.workload === w.id)) {
      const dashes = systems.map(() => '—').join(' | ');
      lines.push(`| ${w.title} (${w.unit}) | ${dashes} | not measured in this run |`);
      continue;
    }
    const cells = systems.map((s) => {
      const row = rows.find((r) => r.workload === w.id && r.system === s);
      if (!row) return '';
      const lat =
        row.p50Ms === null ? '' : `<br>p50 ${formatMs(row.p50Ms)} / p99 ${formatMs(row.p99Ms)} ms`;
      return `${formatRate(row.opsPerSec)}${lat}`;
    });
    const ratios = report.ratios
      .filter((r) => r.workload === w.id)
      .map((r) => `${ratioPrefix(r.workload)}${formatRatio(r.median)} vs ${systemTitle(r.vs)}`)
      .join(', ');
    lines.push(`| ${w.title} (${w.unit}) | ${cells.join(' | ')} | ${ratios} |`);
  }
  return lines.join('\n');
}

/** The load averages the run began and ended with (issue 13: a full run is quoted only quiet). */
function loadLine(report: Report): string {
  const [start1 = 0, start5 = 0] = report.loadAverage.atStart;
  const [end1 = 0, end5 = 0] = report.loadAverage.atEnd;
  return `Load average (1 and 5 minutes) when the run began: ${start1.toFixed(2)}, ${start5.toFixed(2)}; when it ended: ${end1.toFixed(2)}, ${end5.toFixed(2)} (quiet: at most ${QUIET_LOAD_MAX} when it begins).`;
}

/** The quiet-machine warning, right under the results heading, when the run began busy. */
function busyWarning(report: Report): string[] {
  const busy = busyNote(report);
  return busy ? [`**Not to be quoted.** Note: ${busy}`, ''] : [];
}

function perRoundTable(report: Report): string {
  const lines = ['| Workload | ratio | ratio per round | median |', '|---|---|---|---:|'];
  for (const r of report.ratios) {
    const subject = systemTitle(workloadInfo(r.workload).subject);
    lines.push(
      `| ${r.workload} | ${ratioPrefix(r.workload)}${subject} / ${systemTitle(r.vs)} | ${r.perRound.map((x) => x.toFixed(2)).join(', ')} | ${formatRatio(r.median)} |`,
    );
  }
  return lines.join('\n');
}

function targetsTable(report: Report, scale: ScaleReport | undefined): string {
  const lines = ['| Target | Measured (median ratio, target) | Status |', '|---|---|---|'];
  for (const t of judgeTargets(report.ratios, scale)) {
    const status = t.status === 'missed' ? '**missed**' : t.status;
    lines.push(`| ${t.target} | ${t.measured} | ${status} |`);
  }
  return lines.join('\n');
}

function scaleSection(scale: ScaleReport): string {
  const lines = [
    '## Scale mode',
    '',
    `\`npm run bench -- --docs ${scale.docs}${scale.docs > SCALE_MODE_ABOVE_DOCS ? '' : ' --scale'}\` (docdb alone, ${scale.date.slice(0, 10)}, ${scale.machine.cores} cores, Node ${scale.machine.node}). Lookups and gets are random keys over the whole collection for 2 s; the scan is one unindexed filter over every document, the first after the load, so it reads every document from the file.`,
    '',
    probeLine(scale.machine.probe),
    '',
    '| Documents | Load (docs/s) | Point lookup (SQL, /s) | Get by _id (/s) | Unindexed scan (docs/s) | File | Bytes/doc |',
    '|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const p of scale.points) {
    lines.push(
      `| ${p.docs.toLocaleString('en-US')} | ${formatRate(p.loadDocsPerSec)} | ${formatRate(p.pointLookupsPerSec)} | ${formatRate(p.getByIdPerSec)} | ${formatRate(p.scanDocsPerSec)} | ${(p.fileBytes / 1e9).toFixed(2)} GB | ${Math.round(p.bytesPerDoc)} |`,
    );
  }
  lines.push('');
  lines.push(
    `Growth from the first to the last checkpoint: point lookups ${formatRatio(scale.lookupRatio)}, load ${formatRatio(loadRatioOf(scale))}, gets ${formatRatio(scale.getByIdRatio)}, scan rate ${formatRatio(scale.scanRatio)}. File at 10,000,000 documents: ${(scale.fileBytesAt10M / 1e9).toFixed(2)} GB${scale.fileProjected ? ', projected linearly from the last checkpoint' : ''}.`,
  );
  return lines.join('\n');
}

function machineSection(report: Report): string {
  const m = report.machine;
  const packages = Object.entries(m.packages)
    .map(([name, version]) => `${name} ${version}`)
    .join(', ');
  return [
    '## Machine',
    '',
    `${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB, ${m.os}, Node ${m.node}; stores in ${m.tmpdir}.`,
    '',
    `Packages: ${packages}.`,
    '',
    probeLine(m.probe),
  ].join('\n');
}

/** Rewrites docs/benchmarks.md from the results in `resultsDir`. */
export function writeBenchmarksDoc(resultsDir: string): void {
  const report = readJson<Report>(path.join(resultsDir, 'latest.json'));
  const scale = readJson<ScaleReport>(path.join(resultsDir, 'scale.json'));
  const parts = [
    '# Benchmarks',
    '',
    '<!-- Generated by `npm run bench` from bench/results/latest.json (and scale.json). Do not edit: change bench/docs.ts. -->',
    '',
    'docdb is measured against what its users would otherwise pick, on the same machine in the same run (issues 5 and 13). Every performance claim in the README or docs points here; the figures are ratios within one run, never absolute promises.',
    '',
    '## How to run',
    '',
    '```',
    'npm run bench                 # full run: 250,000 documents, 3 rounds, under 20 minutes',
    'npm run bench -- --quick      # smoke run of a few minutes (20,000 documents, 1 round)',
    'npm run bench -- --docs N     # another size; above 1,000,000 it is scale mode',
    'npm run bench -- --docs 10000000   # scale mode: docdb alone, 250k → 10M',
    'npm run bench -- --docs 1000000 --scale   # scale mode at a smaller size',
    'npm run bench -- --only embedded  # one phase: embedded, served, writers or cluster (writes quick.json, like --quick)',
    '```',
    '',
    'The first run installs `bench/` (its own package.json: better-sqlite3 compiles from source, about a minute). PostgreSQL comes from Debian: `apt-get install -y postgresql`; without it the PostgreSQL workloads are skipped with a note. So does wrk, the load generator of the point rows: `apt-get install -y wrk`; without it autocannon drives them, with a note. A full run writes `bench/results/latest.json` and this page; a quick run writes `bench/results/quick.json` only.',
    '',
    METHOD,
    '',
    '### Workloads',
    '',
    workloadTable(),
    '',
  ];
  if (report) {
    parts.push(
      machineSection(report),
      '',
      `## Results (${report.date.slice(0, 10)}, ${report.mode} run, ${report.docs.toLocaleString('en-US')} documents, ${report.rounds} round${report.rounds === 1 ? '' : 's'}, ${report.durationSeconds} s)`,
      '',
      loadLine(report),
      '',
      ...busyWarning(report),
      '### Embedded (workloads 1–8)',
      '',
      resultsTable(report, 'embedded'),
      '',
      '### Served (workload 9; latency per request in whole milliseconds; reads while writing: each answer timed, unrounded)',
      '',
      resultsTable(report, 'served'),
      '',
      '### Concurrent durable writers (8 clients)',
      '',
      resultsTable(report, 'writers'),
      '',
      '### Replicated write path and router path (ratios: the leader or the router over the single node)',
      '',
      resultsTable(report, 'cluster'),
      '',
      '### Ratio per round (docdb, the leader or the router over the peer)',
      '',
      perRoundTable(report),
      '',
      '## Targets of issue 13',
      '',
      targetsTable(report, scale),
      '',
    );
    if (report.postgresSkipped) parts.push(`Note: ${report.postgresSkipped}`, '');
    for (const note of report.notes) parts.push(`- ${note}`);
    if (report.notes.length > 0) parts.push('');
    parts.push(fs.readFileSync(path.join(DIRS.root, 'bench', 'misses.md'), 'utf8'));
  } else {
    parts.push('## Results', '', 'No full run recorded yet: run `npm run bench`.', '');
  }
  if (scale) parts.push(scaleSection(scale), '');
  const file = path.join(DIRS.root, 'docs', 'benchmarks.md');
  fs.writeFileSync(file, parts.join('\n'));
}
