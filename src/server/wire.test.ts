/**
 * The node's side of the wire over real sockets: the Upgrade is taken only for
 * `GET /wire` with `Upgrade: docdb-wire/1` and the API key (refusals answer the REST error
 * body and status), other Upgrades are served as plain requests, requests on one connection
 * are answered by id, a frame past the body limit or a message that is not a request closes
 * the connection saying why, and wire requests count in the metrics under their routes.
 */

import { request } from 'node:http';
import type { Duplex } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../../test/support/app-harness.js';
import { encodeFrame, FrameDecoder } from '../replication/index.js';
import { formatId, newId } from '../util/index.js';
import type { AppOptions } from './app.js';
import { WIRE_BODY_BYTES_HEADER, WIRE_ENVELOPE_BYTES, type WireAnswer } from '../wire/index.js';

const KEY = 'wire-test-key';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function startNode(options: Pick<AppOptions, 'apiKey' | 'bodyBytesMax' | 'timeouts'> = {}) {
  harness = await startHarness(options);
  const url = await harness.app.listen({ port: 0, host: '127.0.0.1' });
  return { harness, url };
}

type Upgraded = { socket: Duplex; head: Buffer; headers: Record<string, unknown> };
type Refused = { status: number; body: { code: string; error: string } };

/** Asks `url` to upgrade with `headers`: the socket, or the refusal's status and body. */
function upgrade(url: string, headers: Record<string, string>, path = '/wire') {
  return new Promise<Upgraded | Refused>((resolve, reject) => {
    const req = request(`${url}${path}`, { headers, agent: false });
    req.on('upgrade', (answer, socket, head) => resolve({ socket, head, headers: answer.headers }));
    req.on('response', async (answer) => {
      let text = '';
      for await (const chunk of answer) text += chunk;
      resolve({ status: answer.statusCode ?? 0, body: JSON.parse(text) });
    });
    req.on('error', reject);
    req.end();
  });
}

const WIRE = { connection: 'Upgrade', upgrade: 'docdb-wire/1' };

/** Sends frames and collects the answers until `count` came or the socket closed. */
function exchange(socket: Duplex, head: Buffer, frames: Buffer[], count: number) {
  return new Promise<WireAnswer[]>((resolve) => {
    const decoder = new FrameDecoder();
    const answers: WireAnswer[] = [];
    const take = (chunk: Buffer) => {
      answers.push(...(decoder.push(chunk) as WireAnswer[]));
      if (answers.length >= count) resolve(answers);
    };
    socket.on('data', take);
    socket.on('close', () => resolve(answers));
    if (head.length > 0) take(head);
    for (const frame of frames) socket.write(frame);
  });
}

describe('the Upgrade to the wire', () => {
  it('takes GET /wire with docdb-wire/1 and the key, and says the body limit', async () => {
    const { url } = await startNode({ apiKey: KEY, bodyBytesMax: 4096 });
    const taken = (await upgrade(url, { ...WIRE, authorization: `Bearer ${KEY}` })) as Upgraded;
    expect(taken.headers.upgrade).toBe('docdb-wire/1');
    expect(taken.headers[WIRE_BODY_BYTES_HEADER]).toBe('4096');
    taken.socket.destroy();
  });

  it('refuses a missing or wrong key as any request: 401 ERR_UNAUTHORIZED', async () => {
    const { url } = await startNode({ apiKey: KEY });
    const none = (await upgrade(url, WIRE)) as Refused;
    expect(none.status).toBe(401);
    expect(none.body.code).toBe('ERR_UNAUTHORIZED');
    const wrong = (await upgrade(url, { ...WIRE, authorization: 'Bearer nope' })) as Refused;
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toMatch(/key/);
  });

  it('refuses another protocol on /wire with 400 naming the one it speaks', async () => {
    const { url } = await startNode();
    const other = (await upgrade(url, { connection: 'Upgrade', upgrade: 'websocket' })) as Refused;
    expect(other.status).toBe(400);
    expect(other.body).toMatchObject({ code: 'ERR_BAD_REQUEST' });
    expect(other.body.error).toBe(
      'GET /wire upgrades to docdb-wire/1 by GET only; got Upgrade: websocket by GET',
    );
  });

  it('serves an Upgrade to another path as a plain request (h2c, a WebSocket)', async () => {
    const { url } = await startNode();
    const health = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(`${url}/health`, {
        agent: false,
        headers: { connection: 'Upgrade, HTTP2-Settings', upgrade: 'h2c', 'http2-settings': '' },
      });
      req.on('response', async (answer) => {
        let text = '';
        for await (const chunk of answer) text += chunk;
        resolve({ status: answer.statusCode ?? 0, text });
      });
      req.on('error', reject);
      req.end();
    });
    expect(health.status).toBe(200);
    expect(JSON.parse(health.text)).toMatchObject({ status: 'ok' });
  });
});

/** Sends one request and collects its answer's frames, up to the last part. */
function answerParts(socket: Duplex, head: Buffer, frame: Buffer) {
  const decoder = new FrameDecoder();
  const parts: WireAnswer[] = [];
  return new Promise<WireAnswer[]>((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      parts.push(...(decoder.push(chunk) as WireAnswer[]));
      if (parts.length > 0 && parts.at(-1)?.more === undefined) resolve(parts);
    });
    if (head.length > 0) socket.emit('data', head);
    socket.write(frame);
  });
}

describe('requests on the wire', () => {
  it('answers each request by its id, errors as the route does, and counts them', async () => {
    const { url, harness } = await startNode();
    await harness.db.insert('orders', { n: 1 });
    const { id } = await harness.db.insert('orders', { n: 2 });
    const { socket, head } = (await upgrade(url, WIRE)) as Upgraded;
    const frames = [
      encodeFrame({ i: 7, op: 'getTagged', a: JSON.stringify(['orders', id]) }),
      encodeFrame({ i: 8, op: 'getTagged', a: JSON.stringify(['orders', formatId(newId())]) }),
      encodeFrame({ i: 9, op: 'query', a: JSON.stringify(['SELECT * FROM nowhere', [], {}]) }),
      encodeFrame({ i: 10, op: 'drop', a: '[]' }),
      encodeFrame({ i: 11, op: 'getByKey', a: JSON.stringify(['orders', 'n']) }),
    ];
    const answers = await exchange(socket, head, frames, 5);
    socket.destroy();
    const byId = new Map(answers.map((a) => [a.i, a]));
    expect(JSON.parse(byId.get(7)?.j as string)).toMatchObject({ doc: { _id: id, n: 2 } });
    expect(byId.get(8)).toEqual({ i: 8 });
    // POST /query answers an unknown collection with 400, as the route does.
    expect(byId.get(9)?.e).toBe(400);
    expect(JSON.parse(byId.get(9)?.j as string)).toMatchObject({
      code: 'ERR_COLLECTION_NOT_FOUND',
    });
    expect(JSON.parse(byId.get(10)?.j as string).error).toMatch(/has no operation 'drop'/);
    expect(JSON.parse(byId.get(11)?.j as string).error).toBe(
      'docdb-wire/1 getByKey: argument 3 must be a string',
    );
    const metrics = await harness.request({ url: '/metrics' });
    expect(metrics.text).toMatch(/method="GET",route="\/collections\/:name\/:id",status="200"} 2/);
    expect(metrics.text).toMatch(/method="POST",route="\/query",status="400"} 1/);
  });

  it('closes a connection whose frame is longer than the body limit, saying why', async () => {
    const { url } = await startNode({ bodyBytesMax: 2048 });
    const { socket, head } = (await upgrade(url, WIRE)) as Upgraded;
    const header = Buffer.alloc(4);
    header.writeUInt32BE(2048 + WIRE_ENVELOPE_BYTES + 1);
    const answers = await exchange(socket, head, [header], 1);
    expect(answers[0]?.i).toBe(0);
    expect(answers[0]?.e).toBe(413);
    expect(JSON.parse(answers[0]?.j as string)).toMatchObject({
      code: 'ERR_BODY_TOO_LARGE',
      error: `a docdb-wire/1 frame of ${2048 + WIRE_ENVELOPE_BYTES + 1} bytes is larger than the limit of ${2048 + WIRE_ENVELOPE_BYTES} bytes (the body limit and the envelope); the connection was closed`,
    });
    await new Promise((resolve) => socket.once('close', resolve));
  });

  it('serves a frame exactly at the limit (the body limit and the envelope)', async () => {
    const { url } = await startNode({ bodyBytesMax: 2048 });
    const { socket, head } = (await upgrade(url, WIRE)) as Upgraded;
    const limit = 2048 + WIRE_ENVELOPE_BYTES;
    const sized = (pad: number) =>
      encodeFrame({ i: 1, op: 'collections', a: '[]', pad: 'x'.repeat(pad) });
    const frame = sized(limit - (sized(2000).length - 4 - 2000));
    expect(frame.length - 4).toBe(limit);
    const answers = await exchange(socket, head, [frame], 1);
    socket.destroy();
    expect(answers).toEqual([{ i: 1, j: '[]' }]);
  });

  it('ends its connections when the app closes, which a held connection does not stop', async () => {
    const { url, harness } = await startNode();
    const { socket } = (await upgrade(url, WIRE)) as Upgraded;
    const ended = new Promise((resolve) => socket.once('end', resolve));
    // A router holds its connections open; the app's close must not wait for it.
    socket.on('end', () => socket.end());
    await harness.app.close();
    await ended;
  });

  it('keeps a resting connection past the HTTP idle, header and request timeouts', async () => {
    const timeouts = { idleSeconds: 1, headerSeconds: 1, requestSeconds: 1 };
    const { url } = await startNode({ timeouts });
    const { socket, head } = (await upgrade(url, WIRE)) as Upgraded;
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const frame = encodeFrame({ i: 1, op: 'collections', a: '[]' });
    const answers = await exchange(socket, head, [frame], 1);
    socket.destroy();
    expect(answers).toEqual([{ i: 1, j: '[]' }]);
  });

  it('closes a connection on a message without an id', async () => {
    const { url } = await startNode();
    const { socket, head } = (await upgrade(url, WIRE)) as Upgraded;
    const answers = await exchange(socket, head, [encodeFrame({ op: 'collections', a: '[]' })], 1);
    expect(answers[0]).toMatchObject({ i: 0, e: 400 });
    expect(JSON.parse(answers[0]?.j as string).error).toBe(
      'a docdb-wire/1 request has a missing or bad field i',
    );
  });

  it("answers a query asked with rows: 'json' with its rows apart, as the route's JSON", async () => {
    const { url, harness } = await startNode();
    await harness.db.bulk('orders', [
      { pnr: 'A', n: 1, text: 'é"\\' },
      { pnr: 'B', n: 2 },
    ]);
    await harness.db.createIndex({ collection: 'orders', path: 'pnr' });
    const { socket, head } = (await upgrade(url, WIRE)) as Upgraded;
    const ask = (i: number, sql: string, options: object) =>
      encodeFrame({ i, op: 'query', a: JSON.stringify([sql, ['A'], options]) });
    const point = 'SELECT * FROM orders WHERE pnr = ?';
    const answers = await exchange(
      socket,
      head,
      [ask(1, point, { rows: 'json' }), ask(2, point, {})],
      2,
    );
    socket.destroy();
    const byId = new Map(answers.map((a) => [a.i, a]));
    const apart = byId.get(1) as WireAnswer;
    const whole = JSON.parse(byId.get(2)?.j as string);
    expect(apart.r?.map((row) => JSON.parse(row))).toEqual(whole.documents);
    // The answer without its rows keeps `documents` (empty) in its place.
    const meta = JSON.parse(apart.j as string);
    expect(Object.keys(meta)).toEqual(Object.keys(whole));
    const { executionMs: _, ...rest } = { ...meta, documents: whole.documents };
    const { executionMs: __, ...wholeRest } = whole;
    expect(rest).toEqual(wholeRest);
    expect(byId.get(2)?.r).toBeUndefined();
  });

  it("sends a long answer asked with rows: 'json' in parts of the route JSON, not apart", async () => {
    const { url, harness } = await startNode();
    const docs = Array.from({ length: 400 }, (_, k) => ({ k, text: 'é'.repeat(1000) }));
    await harness.db.bulk('big', docs);
    const { socket, head } = (await upgrade(url, WIRE)) as Upgraded;
    const sql = 'SELECT * FROM big ORDER BY k';
    const frame = encodeFrame({
      i: 1,
      op: 'query',
      a: JSON.stringify([sql, [], { rows: 'json' }]),
    });
    const parts = await answerParts(socket, head, frame);
    socket.destroy();
    expect(parts.every((p) => p.r === undefined)).toBe(true);
    const json = Buffer.concat(parts.map((p) => p.b as Uint8Array)).toString('utf8');
    expect(JSON.parse(json).documents).toHaveLength(400);
  });

  it('sends a long answer in parts that make up the route JSON', async () => {
    const { url, harness } = await startNode();
    const docs = Array.from({ length: 400 }, (_, k) => ({ k, text: 'é'.repeat(1000) }));
    await harness.db.bulk('big', docs);
    const { socket, head } = (await upgrade(url, WIRE)) as Upgraded;
    const frame = encodeFrame({
      i: 1,
      op: 'query',
      a: JSON.stringify(['SELECT * FROM big', [], {}]),
    });
    const parts = await answerParts(socket, head, frame);
    socket.destroy();
    expect(parts.length).toBeGreaterThan(2);
    const json = Buffer.concat(parts.map((p) => p.b as Uint8Array)).toString('utf8');
    const http = await harness.request({
      method: 'POST',
      url: '/query',
      json: { sql: 'SELECT * FROM big' },
    });
    const { executionMs: _, ...fromWire } = JSON.parse(json);
    const { executionMs: __, ...fromHttp } = http.body;
    expect(fromWire).toEqual(fromHttp);
  });
});
