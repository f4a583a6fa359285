/**
 * The admin UI builds to static files in out/ (`output: 'export'`), which the node and the
 * router serve at /ui/ (src/server/admin-ui.ts): basePath must match that prefix, and each
 * page is a folder with its index.html (trailingSlash), as a static file server expects.
 * `docdb/client` is the checkout's own client, built for browsers (ADR 0024).
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { NextConfig } from 'next';

/** The docdb checkout the UI is built in: the nearest folder above whose package is docdb. */
function docdbRoot(): string {
  for (let dir = path.dirname(import.meta.dirname); ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (fs.existsSync(manifest) && JSON.parse(fs.readFileSync(manifest, 'utf8')).name === 'docdb') {
      return dir;
    }
    if (path.dirname(dir) === dir) throw new Error('admin-ui/ is not inside a docdb checkout');
  }
}

/**
 * The client's browser entry as tsc compiled it (dist/, which `npm run build` makes first):
 * Turbopack cannot follow the sources' `./x.js` imports to `x.ts`. Types come from the
 * sources (tsconfig.json's paths). Relative, as Turbopack's aliases must be.
 */
const CLIENT = path.relative(import.meta.dirname, path.join(docdbRoot(), 'dist/client/browser.js'));

const config: NextConfig = {
  output: 'export',
  basePath: '/ui',
  trailingSlash: true,
  // No server runs at view time: nothing to optimise images on, and no header to send.
  images: { unoptimized: true },
  poweredByHeader: false,
  reactStrictMode: true,
  // The export's pages are prerendered once at build time from client components.
  devIndicators: false,
  turbopack: { resolveAlias: { 'docdb/client': CLIENT } },
};

export default config;
