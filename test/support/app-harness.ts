/**
 * An in-process REST app for tests: a real database in a temp dir, `buildApp` over it, and a
 * `request` helper on `app.inject()` that checks what every answer owes the client: never a
 * 5xx (but the deliberate 503 of a read-only node), an `X-Request-Id`, and for an error a
 * `{ error, code }` body whose code docs/errors.md lists. No sockets; the test closes the app,
 * the database and the temp dir in afterEach.
 */

import * as fs from 'node:fs';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterEach } from 'vitest';
import { type Database, open } from '../../src/engine/index.js';
import { type AppOptions, buildApp } from '../../src/server/app.js';
import { type NodeStatus, newNodeStatus } from '../../src/server/node-status.js';
import { makeTempDir } from './temp-dir.js';

/** Every code docs/errors.md lists (its tables are the contract, not the catalogue). */
export const DOCUMENTED_CODES: ReadonlySet<string> = new Set(
  [
    ...fs
      .readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8')
      .matchAll(/^\| `(ERR_[A-Z_]+)` \|/gm),
  ].map((match) => match[1] as string),
);

/** A parsed JSON body; tests read it field by field. */
// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked by the assertions.
export type Json = any;

/** One request: `json` is sent as JSON, `raw` as is (Content-Type JSON unless given). */
export interface Call {
  /** Any method name, unusual ones included (light-my-request takes every Node method). */
  method?: string;
  url: string;
  json?: unknown;
  raw?: string | Buffer;
  headers?: Record<string, string>;
  /** Send the harness's API key (default true when it has one). */
  auth?: boolean;
}

/** One answer: status, headers, the text and, for a JSON answer, the parsed body. */
export interface Answer {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  text: string;
  body: Json;
}

/** The running app and what it is built on. */
export interface Harness {
  app: ReturnType<typeof buildApp>;
  db: Database;
  status: NodeStatus;
  dir: string;
  apiKey: string | undefined;
  /** Sends a request and checks the invariants of every answer (see the file comment). */
  request(call: Call): Promise<Answer>;
  /** Sends a request without any check, for tests of the checks' subjects themselves. */
  inject(call: Call): Promise<Answer>;
  close(): Promise<void>;
}

function describeCall(call: Call): string {
  const body =
    call.json !== undefined
      ? JSON.stringify(call.json)
      : call.raw !== undefined
        ? String(call.raw)
        : '';
  return `${call.method ?? 'GET'} ${call.url.slice(0, 200)} ${body.slice(0, 200)}`;
}

/**
 * Throws when an answer breaks a rule every answer must keep. The one 5xx allowed is the
 * deliberate 503 ERR_NODE_READ_ONLY of a read-only or follower node.
 */
export function checkAnswer(call: Call, answer: Answer): void {
  const where = `${describeCall(call)} → ${answer.status} ${answer.text.slice(0, 300)}`;
  const refusedWrite = answer.status === 503 && answer.body?.code === 'ERR_NODE_READ_ONLY';
  if (answer.status >= 500 && !refusedWrite) throw new Error(`5xx answer: ${where}`);
  if (typeof answer.headers['x-request-id'] !== 'string') {
    throw new Error(`no X-Request-Id: ${where}`);
  }
  if (answer.status >= 400 && call.method !== 'HEAD') {
    const body = answer.body as { error?: unknown; code?: unknown } | undefined;
    if (typeof body?.error !== 'string' || body.error.length === 0) {
      throw new Error(`error body without an error text: ${where}`);
    }
    if (typeof body.code !== 'string' || !DOCUMENTED_CODES.has(body.code)) {
      throw new Error(`error code not in docs/errors.md: ${where}`);
    }
  }
}

/**
 * For a test file whose tests each start their own harness with their own options: returns
 * the `start` to call, and closes what it started after each test.
 */
export function harnessPerTest(): (options?: HarnessOptions) => Promise<Harness> {
  let current: Harness | undefined;
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  return async (options = {}) => {
    current = await startHarness(options);
    return current;
  };
}

/**
 * Sends `call` to any app (a node's or a router's) through `app.inject()`: JSON or raw bodies
 * as JSON, `apiKey` as Bearer unless the call says `auth: false`.
 */
export async function injectCall(
  app: FastifyInstance,
  call: Call,
  apiKey?: string,
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (apiKey && call.auth !== false) headers.authorization = `Bearer ${apiKey}`;
  let payload: string | Buffer | undefined;
  if (call.json !== undefined) {
    payload = JSON.stringify(call.json);
    headers['content-type'] = 'application/json';
  } else if (call.raw !== undefined) {
    payload = call.raw;
    headers['content-type'] = 'application/json';
  }
  Object.assign(headers, call.headers);
  const response = await app.inject({
    method: (call.method ?? 'GET') as InjectOptions['method'],
    url: call.url,
    headers,
    ...(payload !== undefined && { payload }),
  });
  const type = String(response.headers['content-type'] ?? '');
  const text = response.body;
  return {
    status: response.statusCode,
    headers: response.headers,
    text,
    body: type.includes('application/json') && text !== '' ? JSON.parse(text) : undefined,
  };
}

/** Options of startHarness: the app's, and the node's name. */
export type HarnessOptions = AppOptions & { nodeName?: string };

/** Opens a database in a fresh temp dir and builds the app over it. */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const temp = makeTempDir('docdb-app-');
  const { nodeName, ...appOptions } = options;
  const db = await open(temp.dir, { name: nodeName });
  const status = options.status ?? newNodeStatus();
  let app: FastifyInstance;
  try {
    app = buildApp(db, { ...appOptions, status });
  } catch (error) {
    // Options the app refuses (a test of that): nothing of the harness may outlive it.
    await db.close();
    temp.cleanup();
    throw error;
  }
  const apiKey = options.apiKey;

  const inject = (call: Call) => injectCall(app, call, apiKey);

  return {
    app,
    db,
    status,
    dir: temp.dir,
    apiKey,
    inject,
    async request(call) {
      const answer = await inject(call);
      checkAnswer(call, answer);
      return answer;
    },
    async close() {
      await app.close();
      await db.close();
      temp.cleanup();
    },
  };
}
