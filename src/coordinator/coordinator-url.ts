/**
 * The coordinator URL a node or router is given (`etcd://host:port`, or several members of
 * one etcd cluster as `etcd://host1:port1,host2:port2`): parsing and its errors. Pure; it
 * connects to nothing.
 */

import { DbError } from '../errors/index.js';
import { isPort, PORT_RANGE_TEXT } from '../util/index.js';

/** etcd's own client port, taken when a host names none. */
export const ETCD_PORT_DEFAULT = 2379;

/** Most etcd members one URL may name (etcd clusters have 3, 5 or 7). */
export const COORDINATOR_HOSTS_MAX = 9;

/** One etcd member's client address. */
export interface CoordinatorHost {
  host: string;
  port: number;
}

/** A parsed coordinator URL. */
export interface CoordinatorAddress {
  /** The members, in the order given. */
  hosts: CoordinatorHost[];
  /** The URL written back in its canonical form, for messages: `etcd://127.0.0.1:2379`. */
  url: string;
}

const EXAMPLE = 'write it as etcd://host:port, e.g. etcd://127.0.0.1:2379';

/** A host name (letters, digits, dots, hyphens) or an IPv4 address. */
const HOST_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$/;
/** An IPv6 address in brackets, as URLs write it. */
const HOST_IPV6 = /^\[[0-9A-Fa-f:.]{2,45}\]$/;

/**
 * Parses `etcd://host[:port][,host[:port]…]`. Throws ERR_CONFIG_INVALID naming what is wrong:
 * another scheme, no host, a bad host or port, a path, query, fragment or user name (etcd's
 * password auth is not supported), more than COORDINATOR_HOSTS_MAX hosts.
 */
export function parseCoordinatorUrl(text: string): CoordinatorAddress {
  const bad = (what: string) =>
    new DbError(
      'ERR_CONFIG_INVALID',
      `coordinator URL ${JSON.stringify(text)}: ${what}; ${EXAMPLE}`,
    );
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(text);
  if (scheme === null) throw bad('it has no scheme (etcd://)');
  if (scheme[1]?.toLowerCase() !== 'etcd') {
    throw bad(`the scheme is ${scheme[1]}://, and docdb speaks only to etcd (etcd://)`);
  }
  const rest = text.slice(scheme[0].length);
  const extra = /[/?#@]/.exec(rest);
  if (extra !== null) {
    const parts: Record<string, string> = {
      '/': 'a path',
      '?': 'a query',
      '#': 'a fragment',
      '@': 'a user name (etcd password auth is not supported)',
    };
    const tail = rest.slice(extra.index);
    if (!(extra[0] === '/' && tail === '/'))
      throw bad(`it has ${parts[extra[0]]}, which etcd URLs do not take`);
  }
  const list = rest.replace(/\/$/, '');
  if (list === '') throw bad('it names no host');
  const items = list.split(',');
  if (items.length > COORDINATOR_HOSTS_MAX) {
    throw bad(`it names ${items.length} hosts, more than the ${COORDINATOR_HOSTS_MAX} allowed`);
  }
  const hosts = items.map((item) => parseHost(item, bad));
  return { hosts, url: `etcd://${hosts.map(formatHost).join(',')}` };
}

function parseHost(item: string, bad: (what: string) => DbError): CoordinatorHost {
  if (item === '') throw bad('it has an empty host between commas');
  const match = /^(\[[^\]]*\]|[^:]*)(?::(.*))?$/.exec(item);
  const host = match?.[1] ?? '';
  const portText = match?.[2];
  if (host === '') throw bad(`${JSON.stringify(item)} has no host before the port`);
  if (!HOST_NAME.test(host) && !HOST_IPV6.test(host)) {
    throw bad(`${JSON.stringify(host)} is not a host name or IP address`);
  }
  if (portText === undefined) return { host, port: ETCD_PORT_DEFAULT };
  const port = /^[0-9]{1,5}$/.test(portText) ? Number(portText) : Number.NaN;
  if (!isPort(port)) {
    throw bad(`the port ${JSON.stringify(portText)} of ${host} is not ${PORT_RANGE_TEXT}`);
  }
  return { host, port };
}

/** `host:port` as a URL writes it (IPv6 stays in its brackets). */
export function formatHost(host: CoordinatorHost): string {
  return `${host.host}:${host.port}`;
}
