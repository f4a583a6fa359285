/**
 * The replication endpoints on one node (app.inject): status of a single node, the
 * transitions a single node can make (start leading, read-only and back), the 409s of
 * transitions that do not fit its role (forgetting a follower it holds no lease from too,
 * read-write on a follower, promote on a leader with or without a port, a handover without a
 * coordinator), a follower shown
 * read-only, the auto-failover port's default, and the 400s of bad bodies naming the field. Replication between nodes is proved in
 * src/replication and test/e2e.
 */

import { describe, expect, it } from 'vitest';
import { freePort } from '../../../test/e2e/support.js';
import { harnessPerTest } from '../../../test/support/app-harness.js';

const harness = harnessPerTest();

describe('/replication', () => {
  it('shows a single node', async () => {
    const { request } = await harness();
    const status = await request({ url: '/replication/status' });
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({
      role: 'none',
      readOnly: false,
      term: 1,
      lastSeq: 0,
      followerCount: 0,
      followers: [],
      leader: null,
      gaps: 0,
      divergences: 0,
      lease: null,
      autoFailover: {
        enabled: false,
        state: 'off',
        silenceSeconds: null,
        newLeaderPort: null,
        armed: false,
      },
    });
  });

  it('turns read-only and back; writes get 503 in between', async () => {
    const { request } = await harness();
    expect((await request({ method: 'POST', url: '/replication/read-only' })).body).toMatchObject({
      readOnly: true,
    });
    expect((await request({ url: '/health' })).body.readOnly).toBe(true);
    const refused = await request({ method: 'POST', url: '/collections/a', json: { n: 1 } });
    expect(refused.status).toBe(503);
    expect(refused.body.error).toBe('this node is read-only (handover)');
    await request({ method: 'POST', url: '/replication/read-write' });
    expect((await request({ method: 'POST', url: '/collections/a', json: { n: 1 } })).status).toBe(
      201,
    );
  });

  it('starts leading once, and refuses what a leader cannot do', async () => {
    const { request } = await harness();
    const port = await freePort();
    const started = await request({
      method: 'POST',
      url: '/replication/start-leader',
      json: { port },
    });
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({
      role: 'leader',
      replicationPort: port,
      lease: { required: false, valid: true, holders: [] },
    });
    const again = await request({
      method: 'POST',
      url: '/replication/start-leader',
      json: { port },
    });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'ERR_REPLICATION_STATE' });
    expect(again.body.error).toContain(`already leads, on replication port ${port}`);
    const follow = await request({
      method: 'POST',
      url: '/replication/start-follower',
      json: { host: '127.0.0.1', port: 1 },
    });
    expect(follow.status).toBe(409);
    expect(follow.body.error).toContain('turn it read-only first');
    const promote = await request({ method: 'POST', url: '/replication/promote', json: { port } });
    expect(promote.status).toBe(409);
    const watch = await request({
      method: 'POST',
      url: '/replication/auto-failover/enable',
      json: { silenceSeconds: 5, newLeaderPort: port },
    });
    expect(watch.status).toBe(409);
    expect(watch.body.error).toContain('only a follower enables it');
    const forget = await request({
      method: 'POST',
      url: '/replication/forget-follower',
      json: { name: 'b' },
    });
    expect(forget.status).toBe(409);
    expect(forget.body.error).toBe("no follower named b holds this leader's lease; none does");
  });

  it('refuses to forget a follower on a node that does not lead', async () => {
    const { request } = await harness();
    const answer = await request({
      method: 'POST',
      url: '/replication/forget-follower',
      json: { name: 'b' },
    });
    expect(answer.status).toBe(409);
    expect(answer.body.error).toBe('only a leader holds a lease from its followers');
  });

  it('refuses a handover without a coordinator, naming the handover that works here', async () => {
    const { request } = await harness();
    expect((await request({ url: '/replication/status' })).body.coordinator).toBeNull();
    for (const json of [undefined, { to: 'b' }]) {
      const answer = await request({ method: 'POST', url: '/replication/handover', json });
      expect(answer.status).toBe(409);
      expect(answer.body.code).toBe('ERR_REPLICATION_STATE');
      expect(answer.body.error).toContain(
        'a handover by the coordinator needs one (--coordinator)',
      );
    }
  });

  it('refuses a single node promotion, naming start-leader', async () => {
    const { request } = await harness();
    const answer = await request({
      method: 'POST',
      url: '/replication/promote',
      json: { port: 7 },
    });
    expect(answer.status).toBe(409);
    expect(answer.body.error).toContain('POST /replication/start-leader');
  });

  it('refuses bad bodies, naming the field', async () => {
    const { request } = await harness();
    const cases: Array<[string, unknown, RegExp]> = [
      ['/replication/start-leader', {}, /port/],
      ['/replication/start-leader', { port: 0 }, /port/],
      ['/replication/start-leader', { port: '5500' }, /port/],
      ['/replication/start-leader', { port: 5500, extra: 1 }, /extra|additional/],
      ['/replication/start-leader', { port: 5500, sharedSecret: '' }, /sharedSecret/],
      ['/replication/start-follower', { port: 5500 }, /host/],
      ['/replication/start-follower', { host: 'http://x/', port: 5500 }, /host/],
      [
        '/replication/auto-failover/enable',
        { silenceSeconds: 0, newLeaderPort: 5 },
        /silenceSeconds/,
      ],
      [
        '/replication/auto-failover/enable',
        { silenceSeconds: 5, newLeaderPort: 0 },
        /newLeaderPort/,
      ],
      ['/replication/forget-follower', {}, /name/],
      ['/replication/forget-follower', { name: '' }, /name/],
      ['/replication/handover', { to: '' }, /to/],
      ['/replication/handover', { to: 'b', extra: 1 }, /extra|additional/],
    ];
    for (const [url, json, field] of cases) {
      const answer = await request({ method: 'POST', url, json });
      expect(answer.status, `${url} ${JSON.stringify(json)}`).toBe(400);
      expect(answer.body.error).toMatch(field);
    }
  });

  it('shows a follower read-only, refuses read-write on it, and defaults the new leader port', async () => {
    const { request } = await harness();
    // Nothing listens there: the follower keeps trying, which is all this test needs.
    const leaderPort = await freePort();
    const followed = await request({
      method: 'POST',
      url: '/replication/start-follower',
      json: { host: '127.0.0.1', port: leaderPort },
    });
    expect(followed.body).toMatchObject({ role: 'follower', readOnly: true });
    expect((await request({ url: '/health' })).body).toMatchObject({
      role: 'follower',
      readOnly: true,
    });
    const readWrite = await request({ method: 'POST', url: '/replication/read-write' });
    expect(readWrite.status).toBe(409);
    expect(readWrite.body).toMatchObject({ code: 'ERR_REPLICATION_STATE' });
    expect(readWrite.body.error).toContain('POST /replication/promote');
    expect((await request({ url: '/replication/status' })).body.readOnly).toBe(true);
    const promote = await request({ method: 'POST', url: '/replication/promote', json: {} });
    expect(promote.status).toBe(400);
    expect(promote.body.error).toContain("missing field 'port'");
    const watch = await request({
      method: 'POST',
      url: '/replication/auto-failover/enable',
      json: { silenceSeconds: 30 },
    });
    expect(watch.status).toBe(200);
    expect(watch.body.autoFailover).toMatchObject({
      enabled: true,
      silenceSeconds: 30,
      newLeaderPort: leaderPort,
    });
  });

  it('answers 409 to promote on a leader whether or not the body names a port', async () => {
    const { request } = await harness();
    await request({
      method: 'POST',
      url: '/replication/start-leader',
      json: { port: await freePort() },
    });
    for (const call of [{ json: {} }, {}]) {
      const answer = await request({ method: 'POST', url: '/replication/promote', ...call });
      expect(answer.status).toBe(409);
      expect(answer.body.error).toBe('this node already leads');
    }
  });

  it('refuses a replication port already in use, naming it', async () => {
    const { request } = await harness();
    const port = await freePort();
    const { createServer } = await import('node:net');
    const server = createServer().listen(port, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const answer = await request({
        method: 'POST',
        url: '/replication/start-leader',
        json: { port },
      });
      expect(answer.status).toBe(400);
      expect(answer.body.error).toContain(`replication port ${port} is already in use`);
    } finally {
      server.close();
    }
  });
});
