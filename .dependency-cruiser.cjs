/**
 * The layer map of docs/ARCHITECTURE.md as rules: arrows point down
 * cli/server → engine → sql → storage, and each outside library has one home.
 * `npm run layers` fails on any violation or import cycle.
 */
const layer = (name) => `^src/${name}/`;
/** Node's own modules as dependency-cruiser names them (`fs`, `fs/promises`, …). */
const nodeModules = `^(${require('node:module')
  .builtinModules.map((name) => name.replace(/[/.]/g, '\\$&'))
  .join('|')})(/|$)`;

module.exports = {
  forbidden: [
    { name: 'no-cycles', severity: 'error', from: {}, to: { circular: true } },
    {
      name: 'errors-and-util-are-leaves',
      comment:
        'errors/ and util/ import nothing internal but each other (util may use errors) and, for util, the plain shapes of types/.',
      severity: 'error',
      from: { path: '^src/(errors|util)/' },
      to: { path: '^src/', pathNot: '^src/(errors|util|types)/' },
    },
    {
      name: 'errors-are-below-types',
      comment: 'types/ imports the error codes, so errors/ may not import types/.',
      severity: 'error',
      from: { path: '^src/errors/' },
      to: { path: '^src/types/' },
    },
    {
      name: 'types-are-the-bottom',
      comment: 'types/ holds plain shapes; it imports nothing internal but the error codes.',
      severity: 'error',
      from: { path: layer('types') },
      to: { path: '^src/', pathNot: '^src/(types|errors)/' },
    },
    {
      name: 'storage-below-everything',
      severity: 'error',
      from: { path: layer('storage') },
      to: { path: '^src/', pathNot: '^src/(storage|types|errors|util)/' },
    },
    {
      name: 'sql-above-storage-only',
      severity: 'error',
      from: { path: layer('sql') },
      to: { path: '^src/(engine|server|cli|cluster|client|replication)/' },
    },
    {
      name: 'sql-front-end-is-pure',
      comment: 'lexer, parser, ast, semantics and planner never touch storage.',
      severity: 'error',
      from: { path: '^src/sql/(lexer|parser|ast|semantics|planner)/' },
      to: { path: layer('storage') },
    },
    {
      name: 'ast-imports-nothing-above-it',
      comment: 'The AST (and its printer) is the bottom of the SQL pipeline.',
      severity: 'error',
      from: { path: '^src/sql/ast/' },
      to: { path: '^src/', pathNot: '^src/(errors|util|sql/ast)/' },
    },
    {
      name: 'semantics-is-pure',
      comment:
        'One home for comparison, ordering, keys and aggregates: util, errors and the AST only.',
      severity: 'error',
      from: { path: '^src/sql/semantics/' },
      to: { path: '^src/', pathNot: '^src/(errors|util|sql/ast|sql/semantics)/' },
    },
    {
      name: 'engine-below-server-and-cli',
      severity: 'error',
      from: { path: layer('engine') },
      to: { path: '^src/(server|cli|cluster|client)/' },
    },
    {
      name: 'cluster-uses-only-the-pure-sql-front-end',
      comment:
        'A router parses, plans and merges with the pure SQL front end; it never runs plans, nor touches the engine or storage.',
      severity: 'error',
      from: { path: layer('cluster') },
      to: {
        path: '^src/(storage|engine|sql)/',
        pathNot: '^src/sql/(lexer|parser|ast|semantics|planner)/',
      },
    },
    {
      name: 'client-imports-no-sql',
      severity: 'error',
      from: { path: layer('client') },
      to: { path: '^src/(storage|engine|sql)/' },
    },
    {
      name: 'replication-through-its-port',
      comment:
        'Replication reaches the node only through its port (replication/port.ts), which server/ and cli/ wire from the store and the write gate: it imports neither the engine nor storage, SQL or the server.',
      severity: 'error',
      from: { path: layer('replication') },
      to: { path: '^src/(engine|storage|sql|server|cli|cluster|client)/' },
    },
    {
      name: 'engine-and-storage-below-replication',
      severity: 'error',
      from: { path: '^src/(engine|storage|sql|types|errors|util)/' },
      to: { path: layer('replication') },
    },
    {
      name: 'coordinator-imports-only-errors-util-types',
      comment:
        'Leadership by an etcd lease (ADR 0028) talks to etcd only: no node, storage, SQL or HTTP parts.',
      severity: 'error',
      from: { path: layer('coordinator') },
      to: { path: '^src/', pathNot: '^src/(coordinator|errors|util|types)/' },
    },
    {
      name: 'coordinator-above-the-node-core',
      comment:
        'Replication, the router and the wiring (server, cli) use the coordinator; the layers below them never do.',
      severity: 'error',
      from: { path: '^src/(engine|storage|sql|types|errors|util|client)/' },
      to: { path: layer('coordinator') },
    },
    {
      name: 'wire-imports-only-errors-util-types-and-frames',
      comment:
        "The router's binary connection to a node (src/wire/): its messages and the router's pool, over replication's frames, reading error bodies as the client's transport does; server/wire.ts is the node's side.",
      severity: 'error',
      from: { path: layer('wire') },
      to: {
        path: '^src/',
        pathNot: ['^src/(wire|errors|util|types|replication)/', '^src/client/transport\\.ts$'],
      },
    },
    {
      name: 'nothing-imports-cli',
      severity: 'error',
      from: { pathNot: layer('cli') },
      to: { path: layer('cli') },
    },
    {
      name: 'lmdb-only-in-storage',
      severity: 'error',
      from: { pathNot: layer('storage') },
      to: { path: 'node_modules/lmdb/' },
    },
    {
      name: 'msgpackr-only-in-value-codec-and-frames',
      comment: 'Stored values (value-codec.ts) and replication frames (frames.ts; ADR 0011).',
      severity: 'error',
      from: { pathNot: '^src/(storage/codec/value-codec|replication/frames)\\.ts$' },
      to: { path: 'node_modules/msgpackr/' },
    },
    {
      name: 'fastify-only-in-server',
      severity: 'error',
      from: { pathNot: layer('server') },
      to: { path: 'node_modules/fastify/' },
    },
    {
      name: 'prom-client-only-in-metrics',
      severity: 'error',
      from: { pathNot: '^src/server/metrics\\.ts$' },
      to: { path: 'node_modules/prom-client/' },
    },
    {
      name: 'fastify-static-only-in-admin-ui',
      comment: 'Serving the admin UI build (ADR 0015); admin-ui.ts is its one importer.',
      severity: 'error',
      from: { pathNot: '^src/server/admin-ui\\.ts$' },
      to: { path: 'node_modules/@fastify/static/' },
    },
    {
      name: 'undici-only-in-client',
      comment:
        'The typed HTTP client (ADR 0012); its Node transport is the one importer in src/client/.',
      severity: 'error',
      from: { pathNot: '^src/client/undici-transport\\.ts$' },
      to: { path: 'node_modules/undici/' },
    },
    {
      name: 'etcd3-only-in-coordinator',
      comment:
        'The etcd client (ADR 0028) and its fault-handling library; etcd-client.ts is the one importer in src/coordinator/.',
      severity: 'error',
      from: { pathNot: '^src/coordinator/etcd-client\\.ts$' },
      to: { path: 'node_modules/(etcd3|cockatiel|@grpc)/' },
    },
    {
      name: 'client-browser-entry-needs-no-node',
      comment:
        'docdb/client in a browser (ADR 0024): nothing src/client/browser.ts reaches imports a Node module or undici.',
      severity: 'error',
      from: { path: '^src/client/browser\\.ts$' },
      to: { reachable: true, path: [nodeModules, 'node_modules/undici/'] },
    },
    {
      name: 'cluster-client-entry-stays-a-client',
      comment:
        'docdb/client/cluster (ADR 0029) runs the router in an application: nothing src/cluster/cluster-client.ts reaches loads the server, the engine, storage, the CLI, Fastify or lmdb.',
      severity: 'error',
      from: { path: '^src/cluster/cluster-client\\.ts$' },
      to: {
        reachable: true,
        path: ['^src/(server|engine|storage|cli)/', 'node_modules/(fastify|lmdb|@fastify)/'],
      },
    },
    {
      name: 'client-imports-only-types-errors-util',
      comment:
        'Applications import docdb/client: it must not pull in the server, engine or storage.',
      severity: 'error',
      from: { path: layer('client') },
      to: { path: '^src/', pathNot: '^src/(client|types|errors|util)/' },
    },
    {
      name: 'commander-only-in-cli',
      severity: 'error',
      from: { pathNot: layer('cli') },
      to: { path: 'node_modules/commander/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.test\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
    },
  },
};
