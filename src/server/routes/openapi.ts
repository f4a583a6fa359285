/**
 * Builds GET /openapi.json from the routes' own JSON schemas as they are registered, so the
 * document cannot drift from what the server validates.
 */

import type { RouteOptions } from 'fastify';

declare module 'fastify' {
  interface FastifySchema {
    /** One line for the OpenAPI document. */
    summary?: string;
  }
}

type Schema = Record<string, unknown>;

interface RouteSchema {
  summary?: string;
  params?: Schema;
  querystring?: Schema;
  body?: Schema;
}

function parameters(schema: Schema | undefined, where: 'path' | 'query'): Schema[] {
  const properties = (schema?.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema?.required ?? []) as string[]);
  return Object.entries(properties).map(([name, s]) => ({
    name,
    in: where,
    required: where === 'path' || required.has(name),
    schema: s,
  }));
}

export class OpenApi {
  private readonly paths: Record<string, Record<string, Schema>> = {};

  constructor(private readonly version: string) {}

  add(route: RouteOptions): void {
    const schema = (route.schema ?? {}) as RouteSchema;
    // The admin UI's pages and assets (admin-ui.ts) are not part of the API.
    if ((schema as { hide?: boolean }).hide) return;
    const path = route.url.replace(/:([A-Za-z]+)/g, '{$1}');
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method === 'HEAD') continue;
      const operation: Schema = {
        summary: schema.summary ?? '',
        parameters: [
          ...parameters(schema.params, 'path'),
          ...parameters(schema.querystring, 'query'),
        ],
        responses: { default: { description: 'JSON; errors are { error, code }' } },
      };
      if (schema.body) {
        operation.requestBody = {
          required: route.config?.body !== 'optional',
          content: { 'application/json': { schema: schema.body } },
        };
      }
      this.paths[path] = { ...this.paths[path], [method.toLowerCase()]: operation };
    }
  }

  document(): Schema {
    return {
      openapi: '3.0.3',
      info: { title: 'docdb', version: this.version },
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      },
      paths: this.paths,
    };
  }
}
