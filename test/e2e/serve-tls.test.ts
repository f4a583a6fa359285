/**
 * Proves TLS on `bin/docdb serve` with certificates this test makes with the `openssl`
 * command line: a PEM file holding chain and key (plain, and with an encrypted key and a
 * password), a PKCS#12 file with its password literal and as `env:VAR`; the port then serves
 * HTTPS only; the same from the flags (--tls-cert, --tls-key, --tls-cert-password) and their
 * variables. A wrong or missing password, a missing file and a file that is not a
 * certificate stop the start with exit code 2 (a setting to correct) and a message naming
 * security.tls.
 */

import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runDocdb } from '../support/run-docdb.js';
import { makeTempDir } from '../support/temp-dir.js';
import { selfSignedCert } from '../support/tls-cert.js';
import { cleanEnv, freePort, request, runServeFailing, startServe, stopAll } from './support.js';

const P12_PASSWORD = 'p12-password-must-not-show';
const PEM_PASSWORD = 'pem-password-must-not-show';

let dir: string;
let cleanup: () => void;
let certs: {
  cert: string;
  pem: string;
  encryptedPem: string;
  p12: string;
  pfx: string;
  garbage: string;
  certOnly: string;
  encryptedKey: string;
};

function openssl(...args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'], timeout: 20_000 });
}

beforeAll(() => {
  ({ dir, cleanup } = makeTempDir('docdb-e2e-tls-'));
  const file = (name: string) => path.join(dir, name);
  // A self-signed P-256 certificate for 127.0.0.1, so the client can verify it as its own CA.
  selfSignedCert(dir);
  openssl(
    'pkey',
    '-in',
    file('key.pem'),
    '-aes256',
    '-passout',
    `pass:${PEM_PASSWORD}`,
    '-out',
    file('key.enc.pem'),
  );
  const cert = fs.readFileSync(file('cert.pem'), 'utf8');
  fs.writeFileSync(file('node.pem'), cert + fs.readFileSync(file('key.pem'), 'utf8'));
  fs.writeFileSync(file('node-enc.pem'), cert + fs.readFileSync(file('key.enc.pem'), 'utf8'));
  for (const name of ['node.p12', 'node.pfx']) {
    openssl(
      'pkcs12',
      '-export',
      '-in',
      file('cert.pem'),
      '-inkey',
      file('key.pem'),
      '-out',
      file(name),
      '-passout',
      `pass:${P12_PASSWORD}`,
    );
  }
  fs.writeFileSync(file('garbage.pem'), 'this is not a certificate\n');
  certs = {
    cert,
    pem: file('node.pem'),
    encryptedPem: file('node-enc.pem'),
    p12: file('node.p12'),
    pfx: file('node.pfx'),
    garbage: file('garbage.pem'),
    certOnly: file('cert.pem'),
    encryptedKey: file('key.enc.pem'),
  };
});
afterAll(() => cleanup());
afterEach(() => stopAll());

let configs = 0;
function configFile(port: number, tls: Record<string, unknown>): string {
  const file = path.join(dir, `node-${++configs}.json`);
  const dataDir = path.join(dir, `data-${configs}`);
  fs.writeFileSync(file, JSON.stringify({ nodeName: 'tls', port, dataDir, security: { tls } }));
  return file;
}

/** Starts a node with this TLS section and proves it serves HTTPS with our certificate only. */
async function expectHttpsOnly(
  tls: Record<string, unknown>,
  env: Record<string, string> = {},
): Promise<void> {
  await expectHttpsOnlyFrom((port) => ['--config', configFile(port, tls)], env, 'file');
}

/** The same, for a node started with `args(port)`, its TLS settings from `source`. */
async function expectHttpsOnlyFrom(
  args: (port: number) => string[],
  env: Record<string, string>,
  source: 'file' | 'flag' | 'env',
): Promise<void> {
  const port = await freePort();
  const node = await startServe(args(port), {
    cwd: dir,
    port,
    ca: certs.cert,
    env: cleanEnv(env),
  });
  expect(node.url).toBe(`https://127.0.0.1:${port}`);
  expect(node.startLine).toContain(`listening on https://127.0.0.1:${port}`);
  expect(node.startLine).toContain(`tls=on (${source})`);
  const insert = await request(`${node.url}/collections/secure`, {
    ca: certs.cert,
    body: { a: 1 },
  });
  expect(insert.status).toBe(201);
  // Plain HTTP on the same port gets no HTTP answer: the port speaks TLS only.
  const plain = await request(`http://127.0.0.1:${port}/health`, { timeoutMs: 5000 }).then(
    (response) => `HTTP ${response.status}`,
    (error: Error) => `failed: ${error.message}`,
  );
  expect(plain).toMatch(/^failed/);
  node.child.kill('SIGTERM');
  expect((await node.waitForExit()).code).toBe(0);
  const output = node.stdout() + node.stderr();
  expect(output).not.toContain(P12_PASSWORD);
  expect(output).not.toContain(PEM_PASSWORD);
}

async function expectTlsFailure(
  tls: Record<string, unknown>,
  fragments: string[],
  env: Record<string, string> = {},
): Promise<void> {
  const port = await freePort();
  const { exit, stderr, stdout } = await runServeFailing(['--config', configFile(port, tls)], {
    cwd: dir,
    env: cleanEnv(env),
  });
  // ERR_CONFIG_INVALID: a setting to correct, a usage error (exit 2).
  expect(exit.code, stderr).toBe(2);
  for (const fragment of fragments) expect(stderr).toContain(fragment);
  expect(stderr).toContain('ERR_CONFIG_INVALID');
  expect(stderr + stdout).not.toContain(P12_PASSWORD);
  expect(stderr + stdout).not.toContain(PEM_PASSWORD);
}

describe('TLS with a PEM file (chain and key in one file)', () => {
  it('serves HTTPS only', async () => {
    await expectHttpsOnly({ certPath: certs.pem });
  });

  it('unlocks an encrypted key with certPassword', async () => {
    await expectHttpsOnly({ certPath: certs.encryptedPem, certPassword: PEM_PASSWORD });
  });

  it('refuses an encrypted key with a wrong password', async () => {
    await expectTlsFailure({ certPath: certs.encryptedPem, certPassword: 'wrong' }, [
      'security.tls',
    ]);
  });

  it('refuses a file that is not a certificate', async () => {
    await expectTlsFailure({ certPath: certs.garbage }, ['security.tls']);
  });

  // Was: a PEM file with a certificate but no private key failed with Node's bare "DECODER
  // routines::unsupported"; node.ts now builds the TLS context up front and names security.tls.
  it('refuses a PEM file without a private key, naming security.tls', async () => {
    await expectTlsFailure({ certPath: certs.certOnly }, ['security.tls']);
  });
});

describe('TLS with a PKCS#12 file', () => {
  it('serves HTTPS only with a literal password (.p12)', async () => {
    await expectHttpsOnly({ certPath: certs.p12, certPassword: P12_PASSWORD });
  });

  it('serves HTTPS only with the password from env:VAR (.pfx)', async () => {
    await expectHttpsOnly(
      { certPath: certs.pfx, certPassword: 'env:DOCDB_TEST_CERT_PASSWORD' },
      { DOCDB_TEST_CERT_PASSWORD: P12_PASSWORD },
    );
  });

  it('refuses a wrong password', async () => {
    await expectTlsFailure({ certPath: certs.p12, certPassword: 'wrong-password' }, [
      'security.tls',
    ]);
  });

  it('refuses a wrong password read through env:VAR', async () => {
    await expectTlsFailure(
      { certPath: certs.p12, certPassword: 'env:DOCDB_TEST_CERT_PASSWORD' },
      ['security.tls'],
      { DOCDB_TEST_CERT_PASSWORD: 'wrong-password' },
    );
  });

  it('refuses env:VAR when the variable is not set, naming both', async () => {
    await expectTlsFailure({ certPath: certs.p12, certPassword: 'env:DOCDB_TEST_UNSET_PW' }, [
      'security.tls.certPassword',
      'DOCDB_TEST_UNSET_PW',
      'not set',
    ]);
  });

  it('refuses a missing password', async () => {
    await expectTlsFailure({ certPath: certs.p12 }, ['security.tls']);
  });
});

// Was: TLS could only be set in the config file; serve --help had no TLS flag (issue 23, mend 18).
describe('TLS from flags and variables', () => {
  const onPort = (port: number, ...args: string[]) => [
    '--port',
    String(port),
    '--data-dir',
    path.join(dir, `data-flags-${port}`),
    ...args,
  ];

  it('serves HTTPS only with --tls-cert (a PEM with chain and key)', async () => {
    await expectHttpsOnlyFrom((port) => onPort(port, '--tls-cert', certs.pem), {}, 'flag');
  });

  it('serves HTTPS only with --tls-cert and --tls-key in two files, and the key password', async () => {
    await expectHttpsOnlyFrom(
      (port) =>
        onPort(
          port,
          '--tls-cert',
          certs.certOnly,
          '--tls-key',
          certs.encryptedKey,
          '--tls-cert-password',
          PEM_PASSWORD,
        ),
      {},
      'flag',
    );
  });

  it('serves HTTPS only with DOCDB_TLS_CERT and DOCDB_TLS_CERT_PASSWORD (.p12)', async () => {
    await expectHttpsOnlyFrom(
      (port) => onPort(port),
      { DOCDB_TLS_CERT: certs.p12, DOCDB_TLS_CERT_PASSWORD: P12_PASSWORD },
      'env',
    );
  });

  it('lists the flags in serve --help', () => {
    const help = runDocdb(['serve', '--help']).stdout;
    for (const flag of ['--tls-cert <file>', '--tls-key <file>', '--tls-cert-password']) {
      expect(help).toContain(flag);
    }
    expect(help).toContain('env DOCDB_TLS_CERT)');
  });

  it('refuses a key or password flag without a certificate, naming it', async () => {
    const port = await freePort();
    const { exit, stderr } = await runServeFailing(onPort(port, '--tls-key', certs.pem), {
      cwd: dir,
      env: cleanEnv(),
    });
    expect(exit.code, stderr).toBe(2);
    expect(stderr).toContain('--tls-key: set, but no TLS certificate is; add --tls-cert');
  });
});

describe('TLS start-up errors', () => {
  it('refuses a missing certificate file, naming security.tls.certPath', async () => {
    await expectTlsFailure({ certPath: path.join(dir, 'missing.pem') }, [
      'security.tls.certPath',
      'missing.pem',
      'ENOENT',
    ]);
  });

  it('refuses security.tls without certPath', async () => {
    await expectTlsFailure({ certPassword: 'x' }, ['security.tls.certPath', 'missing']);
  });
});
