/**
 * Query-string values arrive as text and are validated as text (the validator coerces
 * nothing), then read here: `true`/`false` flags and non-negative integers. One rule for
 * every endpoint: a parameter the endpoint does not take is refused (400 naming it and the
 * ones it takes), so a typo such as `?atomc=true` never silently changes what runs. The
 * admin UI's static pages are files, not endpoints, and are left alone.
 */

import type { FastifyInstance } from 'fastify';
import { isAdminUiRoute } from '../admin-ui.js';

/** Schema of a `true`/`false` flag; `description` words its 400. */
export const FLAG = {
  type: 'string',
  enum: ['true', 'false'],
  description: 'true or false',
} as const;

/** Schema of a non-negative integer written in decimal; `description` words its 400. */
export const COUNT = {
  type: 'string',
  pattern: '^(0|[1-9][0-9]{0,8})$',
  description: 'a non-negative integer such as 100',
} as const;

export function flag(value: string | undefined): boolean {
  return value === 'true';
}

export function count(value: string | undefined, fallback: number): number {
  return value === undefined ? fallback : Number(value);
}

/**
 * Makes every route of `app` registered from now on refuse query parameters its schema does
 * not declare (a route that declares none takes none). Call before the routes are registered.
 */
export function refuseUnknownParameters(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (isAdminUiRoute(route.url)) return;
    route.schema ??= {};
    const declared = route.schema.querystring as Record<string, unknown> | undefined;
    route.schema.querystring = {
      type: 'object',
      properties: {},
      ...declared,
      additionalProperties: false,
    };
  });
}

/** The parameters a route's schema declares, for the 400 of one it does not. */
export function declaredParameters(schema: unknown): string[] {
  const querystring = (schema as { querystring?: { properties?: object } } | undefined)
    ?.querystring;
  return Object.keys(querystring?.properties ?? {});
}
