/**
 * `npm run build:binary`: one executable file for this machine's platform, a Node single
 * executable application (node's own binary with docdb injected). What it carries is one
 * asset, the payload: package.json, dist/, the packages docdb's own dependencies need (the
 * native addons of lmdb and msgpackr-extract among them) and the admin UI's static files when
 * built; nothing of the UI's build toolchain (issue 23: at most 130 MB, 60 MB unpacked). scripts/sea/bootstrap.cjs, the binary's main script, checks the payload's SHA-256 and
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
/**
 * Files no running docdb reads: TypeScript sources and types (Node 20 runs none from
 * node_modules), source maps, docs, native sources, CI settings and other dot-files.
 */
const SKIPPED =
  /\.([cm]?ts|map|md|markdown|c|cc|cpp|h|hpp|gyp|gypi|ya?ml)$|(^|\/)(test|tests|docs?|example|examples)\/|(^|\/)\./i;

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

/**
 * The package folders docdb's own `dependencies` resolve to, all levels deep, found the way
 * Node finds them: each package's `dependencies`, `optionalDependencies` and installed
 * `peerDependencies`, looked up in the `node_modules` folders from the package up to ROOT.
 * Not `npm ls --omit=dev`: that counts the dependencies of admin-ui (a workspace) too, which
 * are the UI's build toolchain (Next.js, its compiler, React: most of the 331 MB the binary
 * unpacked before issue 23), while the UI runs as the static files in admin-ui/out.
 */
function productionPackages(): string[] {
  const found = new Set<string>();
  const visit = (name: string, from: string, required: boolean): void => {
    const at = resolvePackage(name, from);
    if (at === undefined) {
      if (!required) return;
      const by = path.relative(ROOT, from) || 'docdb';
      throw new Error(`${name}, a dependency of ${by}, is not installed: run npm ci`);
    }
    if (found.has(at)) return;
    found.add(at);
    const manifest = JSON.parse(fs.readFileSync(path.join(at, 'package.json'), 'utf8'));
    for (const dependency of Object.keys(manifest.dependencies ?? {})) {
      visit(dependency, at, true);
    }
    for (const field of ['optionalDependencies', 'peerDependencies']) {
      for (const dependency of Object.keys(manifest[field] ?? {})) {
        visit(dependency, at, false);
      }
    }
  };
  const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  for (const dependency of Object.keys(manifest.dependencies ?? {})) {
    visit(dependency, ROOT, true);
  }
  return [...found].sort();
}

/**
 * The folder of package `name` as Node would find it from `from`: `node_modules/<name>` in
 * `from` and each folder above it, up to ROOT. Paths are not resolved through symbolic links,
 * so a worktree whose node_modules links to another checkout still packs `node_modules/…`.
 */
function resolvePackage(name: string, from: string): string | undefined {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (path.basename(dir) !== 'node_modules') {
      const candidate = path.join(dir, 'node_modules', name);
      if (fs.existsSync(path.join(candidate, 'package.json'))) return candidate;
    }
    if (dir === ROOT || path.dirname(dir) === dir) return undefined;
  }
}

/** This machine's C library on Linux, as native addon file names tag it. */
function libc(): 'glibc' | 'musl' | undefined {
  if (process.platform !== 'linux') return undefined;
  const report = process.report.getReport() as { header?: { glibcVersionRuntime?: string } };
  return report.header?.glibcVersionRuntime ? 'glibc' : 'musl';
}

/**
 * Whether a prebuilt native addon could load in the binary, read from the tags of its file
 * name as node-gyp-build names them (`node.abi115.glibc.node`, `node.napi.musl.node`): the
 * binary is this very `node`, so an addon built for another ABI, C library or runtime never
 * loads, and lmdb's package for one platform carries four (about 4 MB each). A name without tags is kept.
 */
function addonLoads(file: string, cLibrary: 'glibc' | 'musl' | undefined): boolean {
  const tags = path.basename(file).split('.').slice(0, -1);
  if (tags.includes('electron') || tags.includes('node-webkit')) return false;
  const abi = tags.find((tag) => /^abi\d+$/.test(tag));
  if (abi !== undefined && abi !== `abi${process.versions.modules}` && !tags.includes('napi')) {
    return false;
  }
  return !tags.some((tag) => (tag === 'glibc' || tag === 'musl') && tag !== cLibrary);
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
  const cLibrary = libc();
  const sources = [
    ...filesUnder(path.join(ROOT, 'dist')),
    ...productionPackages()
      .flatMap((dir) => filesUnder(dir))
      .filter((file) => !file.endsWith('.node') || addonLoads(file, cLibrary)),
  ];
  const ui = path.join(ROOT, 'admin-ui', 'out');
  if (fs.existsSync(ui)) sources.push(...filesUnder(ui, /\.map$/));
  else step('admin-ui/out is not built: the binary carries no admin UI');
  for (const relative of sources) {
    // The bootstrap writes each file at its path under the unpacked folder: none may leave it.
    if (relative.startsWith('../') || path.isAbsolute(relative)) {
      throw new Error(
        `${relative} lies outside ${ROOT}: the payload holds the checkout's files only`,
      );
    }
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
