// The entry point of docdb's single-file binary (a Node single executable application). The
// binary carries one asset, the payload: docdb's dist/, its production node_modules (the native
// addons of lmdb and msgpackr-extract among them) and the admin UI, packed by
// scripts/build-binary.ts. On first run the payload is checked against the SHA-256 the build
// wrote below, unpacked into a cache directory and marked complete; later runs check the mark
// and start from there. Native addons can only be loaded from files, hence the unpacking.
// Plain CommonJS over Node's built-ins: a single executable's main script cannot load
// anything else.
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { createRequire } = require('node:module');
// node:crypto, node:sea and node:zlib are required where the payload is unpacked: a run
// that finds its copy in place (every run but the first) loads none of them.

// Filled in by scripts/build-binary.ts.
const VERSION = '__DOCDB_VERSION__';
const PAYLOAD_SHA256 = '__DOCDB_PAYLOAD_SHA256__';
const MAGIC = 'DOCDBPK1';

function fail(message) {
  process.stderr.write(`docdb: ${message}\n`);
  process.exit(1);
}

/** Where unpacked payloads live: DOCDB_CACHE_DIR, else the user's cache directory. */
function cacheRoot() {
  if (process.env.DOCDB_CACHE_DIR) return path.resolve(process.env.DOCDB_CACHE_DIR);
  const base =
    process.env.XDG_CACHE_HOME || (os.homedir() ? path.join(os.homedir(), '.cache') : os.tmpdir());
  return path.join(base, 'docdb');
}

/** Payload: MAGIC, u32 index length, index JSON [{ path, mode, size }], gzip of the files. */
function unpack(payload, into) {
  if (payload.subarray(0, MAGIC.length).toString('latin1') !== MAGIC) {
    fail('the binary carries no docdb payload (was it built with npm run build:binary?)');
  }
  const indexLength = payload.readUInt32LE(MAGIC.length);
  const indexStart = MAGIC.length + 4;
  const index = JSON.parse(payload.subarray(indexStart, indexStart + indexLength).toString());
  const bytes = require('node:zlib').gunzipSync(payload.subarray(indexStart + indexLength));
  let offset = 0;
  for (const file of index) {
    const target = path.join(into, file.path);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, bytes.subarray(offset, offset + file.size), { mode: file.mode });
    offset += file.size;
  }
  if (offset !== bytes.length) fail('the binary payload is damaged (its files do not add up)');
}

/** The unpacked copy for this payload, made on first run (atomically, safe to race). */
function unpacked() {
  const root = cacheRoot();
  const dir = path.join(root, `${VERSION}-${PAYLOAD_SHA256.slice(0, 16)}`);
  const mark = path.join(dir, '.complete');
  try {
    if (fs.readFileSync(mark, 'utf8') === PAYLOAD_SHA256) return dir;
  } catch {
    // Not unpacked yet (or half): unpack below.
  }
  const payload = Buffer.from(require('node:sea').getRawAsset('payload'));
  const digest = require('node:crypto').createHash('sha256').update(payload).digest('hex');
  if (digest !== PAYLOAD_SHA256) {
    fail(`the binary payload is damaged: SHA-256 ${digest}, expected ${PAYLOAD_SHA256}`);
  }
  let temp;
  try {
    fs.mkdirSync(root, { recursive: true });
    temp = fs.mkdtempSync(path.join(root, '.unpacking-'));
    unpack(payload, temp);
    // The mark goes in before the rename: a directory under its final name is always whole.
    fs.writeFileSync(path.join(temp, '.complete'), PAYLOAD_SHA256);
    fs.renameSync(temp, dir);
  } catch (error) {
    if (temp) fs.rmSync(temp, { recursive: true, force: true });
    // Another first run may have put the same copy in place meanwhile.
    try {
      if (fs.readFileSync(mark, 'utf8') === PAYLOAD_SHA256) return dir;
    } catch {}
    fail(
      `cannot unpack into ${dir}: ${error.message}; remove it, or set DOCDB_CACHE_DIR to a writable directory`,
    );
  }
  return dir;
}

const dir = unpacked();
// launch.cjs imports dist/cli/main.js: an ES module, which this script cannot import itself.
createRequire(path.join(dir, 'launch.cjs'))('./launch.cjs');
