/**
 * A self-signed P-256 certificate for 127.0.0.1 (and localhost) made with openssl, for tests
 * that serve TLS: the client trusts it as its own CA. Writes `key.pem` and `cert.pem` in `dir`.
 */

import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface SelfSigned {
  keyFile: string;
  certFile: string;
  key: string;
  cert: string;
}

export function selfSignedCert(dir: string): SelfSigned {
  const keyFile = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], timeout: 20_000 },
  );
  return {
    keyFile,
    certFile,
    key: fs.readFileSync(keyFile, 'utf8'),
    cert: fs.readFileSync(certFile, 'utf8'),
  };
}
