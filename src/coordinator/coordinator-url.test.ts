/**
 * Proves that coordinator URLs parse into etcd hosts, that each bad form is refused with
 * ERR_CONFIG_INVALID naming what is wrong, and that the lease timing is checked the same way.
 */

import { describe, expect, it } from 'vitest';
import { DbError } from '../errors/index.js';
import { COORDINATOR_HOSTS_MAX, parseCoordinatorUrl } from './coordinator-url.js';
import { leaseTiming, writeStopMarginMs } from './lease-timing.js';

function refusal(work: () => unknown): DbError {
  try {
    work();
  } catch (error) {
    expect(error).toBeInstanceOf(DbError);
    expect((error as DbError).code).toBe('ERR_CONFIG_INVALID');
    return error as DbError;
  }
  throw new Error('expected a refusal');
}

describe('parseCoordinatorUrl', () => {
  it('reads one host, several hosts, IPv6 and the default port', () => {
    expect(parseCoordinatorUrl('etcd://127.0.0.1:2379')).toEqual({
      hosts: [{ host: '127.0.0.1', port: 2379 }],
      url: 'etcd://127.0.0.1:2379',
    });
    expect(parseCoordinatorUrl('ETCD://etcd-1.example:2380,etcd-2:2381/').hosts).toEqual([
      { host: 'etcd-1.example', port: 2380 },
      { host: 'etcd-2', port: 2381 },
    ]);
    expect(parseCoordinatorUrl('etcd://[::1]:2379').hosts).toEqual([{ host: '[::1]', port: 2379 }]);
    expect(parseCoordinatorUrl('etcd://db-etcd').url).toBe('etcd://db-etcd:2379');
  });

  it.each([
    ['127.0.0.1:2379', 'it has no scheme (etcd://)'],
    ['http://127.0.0.1:2379', 'the scheme is http://, and docdb speaks only to etcd'],
    ['etcd://', 'it names no host'],
    ['etcd://:2379', 'has no host before the port'],
    ['etcd://host:0', 'the port "0" of host is not an integer from 1 to 65535'],
    ['etcd://host:65536', 'the port "65536" of host is not an integer'],
    ['etcd://host:12ab', 'the port "12ab" of host is not'],
    ['etcd://host:2379/v3', 'it has a path'],
    ['etcd://host:2379?x=1', 'it has a query'],
    ['etcd://host:2379#f', 'it has a fragment'],
    ['etcd://user:pw@host:2379', 'a user name (etcd password auth is not supported)'],
    ['etcd://a:1,,b:2', 'an empty host between commas'],
    ['etcd://bad_host!:2379', '"bad_host!" is not a host name or IP address'],
  ])('refuses %s', (url, what) => {
    const error = refusal(() => parseCoordinatorUrl(url));
    expect(error.message).toContain(`coordinator URL ${JSON.stringify(url)}`);
    expect(error.message).toContain(what);
    expect(error.message).toContain('etcd://host:port');
  });

  it(`takes ${COORDINATOR_HOSTS_MAX} hosts and refuses one more`, () => {
    const hosts = (n: number) => Array.from({ length: n }, (_, i) => `h${i}:2379`).join(',');
    expect(parseCoordinatorUrl(`etcd://${hosts(COORDINATOR_HOSTS_MAX)}`).hosts).toHaveLength(
      COORDINATOR_HOSTS_MAX,
    );
    expect(
      refusal(() => parseCoordinatorUrl(`etcd://${hosts(COORDINATOR_HOSTS_MAX + 1)}`)).message,
    ).toContain(`names ${COORDINATOR_HOSTS_MAX + 1} hosts`);
  });
});

describe('leaseTiming', () => {
  it('defaults to a 10 s lease that stops writes max(1 s, TTL/4) early', () => {
    expect(leaseTiming()).toMatchObject({ ttlSeconds: 10, marginMs: 2500, callTimeoutMs: 2000 });
    expect(writeStopMarginMs(2)).toBe(1000);
    expect(writeStopMarginMs(60)).toBe(15000);
  });

  it.each([
    [{ ttlSeconds: 1 }, 'lease TTL is whole seconds from 2 to 300; got 1'],
    [{ ttlSeconds: 301 }, 'got 301'],
    [{ ttlSeconds: 2.5 }, 'got 2.5'],
    [{ ttlSeconds: 10, marginMs: 0 }, 'write-stop margin is whole milliseconds above 0'],
    [{ ttlSeconds: 10, marginMs: 5001 }, 'at most half the lease TTL (5000 ms); got 5001'],
    [{ ttlSeconds: 4, callTimeoutMs: 3000 }, 'below the lease TTL less the margin (3000 ms)'],
    [{ settleMs: -1 }, 'election settle time is whole milliseconds'],
  ])('refuses %o', (timing, what) => {
    expect(refusal(() => leaseTiming(timing)).message).toContain(what);
  });

  it('takes the margin at exactly half the TTL', () => {
    expect(leaseTiming({ ttlSeconds: 10, marginMs: 5000, callTimeoutMs: 4999 }).marginMs).toBe(
      5000,
    );
  });
});
