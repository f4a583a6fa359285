/**
 * `npm run build:binary`: one executable file for this machine's platform, a Node single
 * executable application (node's own binary with docdb injected). What it carries is one
 * asset, the payload: package.json, dist/, the production dependencies from node_modules (the
 * native addons of lmdb and msgpackr-extract among them) and the admin UI's static files when
 * built. scripts/sea/bootstrap.cjs, the binary's main script, checks the payload's SHA-256 and
 * unpacks it on first run (native addons load only from files). Options: `--out <file>`
 * (default `build/docdb-<platform>-<arch>`). A release for another platform is built on that
 * platform (docs/install.md).
 */

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';

const ROOT = path.resolve(import.meta.dirname, '..');
const MAGIC = 'DOCDBPK1';
/** The fuse Node's single executable support looks for (fixed by Node). */
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
/** Files no running docdb reads: types, source maps, docs, native sources. */
const SKIPPED =
  /\.(d\.[cm]?ts|map|md|markdown|c|cc|cpp|h|hpp|gyp|gypi)$|(^|\/)(test|tests|docs?|example|examples)\//i;

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(name);
  return at >= 0 && process.argv[at + 1] !== undefined
    ? (process.argv[at + 1] as string)
    : fallback;
}

function step(message: string): void {
  process.stderr.write(`build:binary: ${message}\n`);
}

/** Every file under `dir`, relative to ROOT, without nested node_modules. */
function filesUnder(dir: string, skip = SKIPPED): string[] {
  const out: string[] = [];
  const walk = (at: string) => {
    for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name);
      const relative = path.relative(ROOT, full).split(path.sep).join('/');
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules') walk(full);
      } else if (entry.isFile() && !skip.test(relative)) {
        out.push(relative);
      }
    }
  };
  walk(dir);
  return out;
}

/** The package folders `npm ls` names as production dependencies, all levels deep. */
function productionPackages(): string[] {
  const ls = spawnSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (ls.status !== 0 && !ls.stdout) throw new Error(`npm ls failed: ${ls.stderr}`);
  return ls.stdout
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && path.resolve(line) !== ROOT);
}

function payloadFiles(): Array<{ path: string; bytes: Buffer; mode: number }> {
  const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const files = [
    {
      path: 'package.json',
      bytes: Buffer.from(
        `${JSON.stringify({ name: manifest.name, version: manifest.version, type: 'module' }, null, 2)}\n`,
      ),
      mode: 0o644,
    },
    {
      path: 'launch.cjs',
      bytes: Buffer.from(
        "// Started by the binary's bootstrap: docdb's CLI is an ES module.\n" +
          "import(require('node:url').pathToFileURL(require('node:path').join(__dirname, 'dist/cli/main.js')).href);\n",
      ),
      mode: 0o644,
    },
  ];
  const sources = [
    ...filesUnder(path.join(ROOT, 'dist')),
    ...productionPackages().flatMap((dir) => filesUnder(dir)),
  ];
  const ui = path.join(ROOT, 'admin-ui', 'out');
  if (fs.existsSync(ui)) sources.push(...filesUnder(ui, /\.map$/));
  else step('admin-ui/out is not built: the binary carries no admin UI');
  for (const relative of sources) {
    const full = path.join(ROOT, relative);
    files.push({
      path: relative,
      bytes: fs.readFileSync(full),
      mode: fs.statSync(full).mode & 0o777,
    });
  }
  return files;
}

function pack(files: Array<{ path: string; bytes: Buffer; mode: number }>): Buffer {
  const index = Buffer.from(
    JSON.stringify(files.map((f) => ({ path: f.path, mode: f.mode, size: f.bytes.length }))),
  );
  const length = Buffer.alloc(4);
  length.writeUInt32LE(index.length);
  const body = gzipSync(Buffer.concat(files.map((f) => f.bytes)), { level: 9 });
  return Buffer.concat([Buffer.from(MAGIC, 'latin1'), length, index, body]);
}

async function main(): Promise<void> {
  if (!fs.existsSync(path.join(ROOT, 'dist', 'cli', 'main.js'))) {
    throw new Error('dist/ is not built: run npm run build first');
  }
  const out = path.resolve(
    option('--out', path.join('build', `docdb-${process.platform}-${process.arch}`)),
  );
  const work = path.join(ROOT, 'build', 'sea');
  fs.mkdirSync(work, { recursive: true });
  fs.mkdirSync(path.dirname(out), { recursive: true });

  const files = payloadFiles();
  const payload = pack(files);
  const sha256 = createHash('sha256').update(payload).digest('hex');
  const raw = files.reduce((n, f) => n + f.bytes.length, 0);
  step(
    `payload: ${files.length} files, ${(raw / 1e6).toFixed(1)} MB packed into ${(payload.length / 1e6).toFixed(1)} MB`,
  );
  fs.writeFileSync(path.join(work, 'payload.bin'), payload);

  const version = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;
  const bootstrap = fs
    .readFileSync(path.join(ROOT, 'scripts', 'sea', 'bootstrap.cjs'), 'utf8')
    .replace('__DOCDB_VERSION__', version)
    .replace('__DOCDB_PAYLOAD_SHA256__', sha256);
  fs.writeFileSync(path.join(work, 'main.cjs'), bootstrap);
  fs.writeFileSync(
    path.join(work, 'sea-config.json'),
    JSON.stringify({
      main: path.join(work, 'main.cjs'),
      output: path.join(work, 'sea-prep.blob'),
      disableExperimentalSEAWarning: true,
      useCodeCache: false,
      assets: { payload: path.join(work, 'payload.bin') },
    }),
  );
  const blob = spawnSync(
    process.execPath,
    ['--experimental-sea-config', path.join(work, 'sea-config.json')],
    {
      encoding: 'utf8',
    },
  );
  if (blob.status !== 0) throw new Error(`node --experimental-sea-config failed: ${blob.stderr}`);

  // Node's own binary, with the blob injected under the fuse it checks at start.
  const temp = `${out}.tmp-${process.pid}`;
  fs.copyFileSync(process.execPath, temp);
  fs.chmodSync(temp, 0o755);
  const { inject } = createRequire(import.meta.url)('postject') as {
    inject(
      file: string,
      name: string,
      data: Buffer,
      options: Record<string, unknown>,
    ): Promise<void>;
  };
  await inject(temp, 'NODE_SEA_BLOB', fs.readFileSync(path.join(work, 'sea-prep.blob')), {
    sentinelFuse: SEA_FUSE,
    ...(process.platform === 'darwin' && { machoSegmentName: 'NODE_SEA' }),
  });
  fs.renameSync(temp, out);
  step(
    `${path.relative(process.cwd(), out)}: ${(fs.statSync(out).size / 1e6).toFixed(1)} MB (docdb ${version}, node ${process.version}, ${process.platform}-${process.arch})`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`build:binary: ${(error as Error).message}\n`);
  process.exit(1);
});
