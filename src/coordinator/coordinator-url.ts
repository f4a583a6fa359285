/**
 * The coordinator URL a node or router is given (`etcd://host:port`, or several members of
 * one etcd cluster as `etcd://host1:port1,host2:port2`): parsing and its errors. Pure; it
 * connects to nothing.
 */

import { dbError } from '../errors/index.js';
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
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(text);
  if (scheme === null)
    throw dbError('ERR_CONFIG_INVALID', 'coordinatorNoScheme', {
      text: JSON.stringify(text),
      example: EXAMPLE,
    });
  if (scheme[1]?.toLowerCase() !== 'etcd') {
    throw dbError('ERR_CONFIG_INVALID', 'coordinatorScheme', {
      text: JSON.stringify(text),
      scheme: scheme[1],
      example: EXAMPLE,
    });
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
      throw dbError('ERR_CONFIG_INVALID', 'coordinatorParts', {
        text: JSON.stringify(text),
        parts: parts[extra[0]],
        example: EXAMPLE,
      });
  }
  const list = rest.replace(/\/$/, '');
  if (list === '')
    throw dbError('ERR_CONFIG_INVALID', 'coordinatorNoHost', {
      text: JSON.stringify(text),
      example: EXAMPLE,
    });
  const items = list.split(',');
  if (items.length > COORDINATOR_HOSTS_MAX) {
    throw dbError('ERR_CONFIG_INVALID', 'coordinatorTooManyHosts', {
      text: JSON.stringify(text),
      count: items.length,
      limit: COORDINATOR_HOSTS_MAX,
      example: EXAMPLE,
    });
  }
  const hosts = items.map((item) => parseHost(item, text));
  return { hosts, url: `etcd://${hosts.map(formatHost).join(',')}` };
}

/** One host of the URL `text`: `host[:port]`. */
function parseHost(item: string, text: string): CoordinatorHost {
  if (item === '')
    throw dbError('ERR_CONFIG_INVALID', 'coordinatorEmptyHost', {
      text: JSON.stringify(text),
      example: EXAMPLE,
    });
  const match = /^(\[[^\]]*\]|[^:]*)(?::(.*))?$/.exec(item);
  const host = match?.[1] ?? '';
  const portText = match?.[2];
  if (host === '')
    throw dbError('ERR_CONFIG_INVALID', 'coordinatorPortOnly', {
      text: JSON.stringify(text),
      item: JSON.stringify(item),
      example: EXAMPLE,
    });
  if (!HOST_NAME.test(host) && !HOST_IPV6.test(host)) {
    throw dbError('ERR_CONFIG_INVALID', 'coordinatorBadHost', {
      text: JSON.stringify(text),
      host: JSON.stringify(host),
      example: EXAMPLE,
    });
  }
  if (portText === undefined) return { host, port: ETCD_PORT_DEFAULT };
  const port = /^[0-9]{1,5}$/.test(portText) ? Number(portText) : Number.NaN;
  if (!isPort(port)) {
    throw dbError('ERR_CONFIG_INVALID', 'coordinatorBadPort', {
      text: JSON.stringify(text),
      portText: JSON.stringify(portText),
      host,
      range: PORT_RANGE_TEXT,
      example: EXAMPLE,
    });
  }
  return { host, port };
}

/** `host:port` as a URL writes it (IPv6 stays in its brackets). */
export function formatHost(host: CoordinatorHost): string {
  return `${host.host}:${host.port}`;
}
