/**
 * The admin UI builds to static files in out/ (`output: 'export'`), which the node and the
 * router serve at /ui/ (src/server/admin-ui.ts): basePath must match that prefix, and each
 * page is a folder with its index.html (trailingSlash), as a static file server expects.
 */

import type { NextConfig } from 'next';

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
};

export default config;
