/**
 * The coordinator as its users see it: one connection to etcd, opened from a coordinator URL,
 * through which a node joins its replica set (and campaigns, leads, resigns) and a follower or
 * router reads and watches who leads. It checks etcd answers before anything relies on it.
 */

import { parseCoordinatorUrl } from './coordinator-url.js';
import type { EtcdClient } from './etcd-client.js';
import { type LeaseTiming, leaseTiming } from './lease-timing.js';
import { Member, type Position } from './member.js';
import {
  type LeaderInfo,
  type MemberIdentity,
  type MemberRecord,
  readLeader,
  readMember,
  setKeys,
} from './set-keys.js';
import { type Observation, watchLeader } from './watch-leader.js';

/** A connection to the coordinator (etcd) and the timing every lease through it uses. */
export class Coordinator {
  private readonly joined = new Set<Member>();

  private constructor(
    private readonly client: EtcdClient,
    readonly timing: LeaseTiming,
  ) {}

  /**
   * Connects to the etcd at `url` (`etcd://host:port`) and checks that it answers. Throws
   * ERR_CONFIG_INVALID for a bad URL or timing, ERR_COORDINATOR_UNREACHABLE (naming the URL)
   * when etcd does not answer within the call timeout.
   */
  static async open(url: string, timing: Partial<LeaseTiming> = {}): Promise<Coordinator> {
    const address = parseCoordinatorUrl(url);
    const checked = leaseTiming(timing);
    // Loaded here, not at import: etcd3 with gRPC and protobufjs costs about half a second
    // and 20 MB at start, which a node without a coordinator should not pay (ADR 0028).
    const { EtcdClient } = await import('./etcd-client.js');
    const client = new EtcdClient(address, checked.callTimeoutMs);
    try {
      await client.ping();
    } catch (error) {
      client.close();
      throw error;
    }
    return new Coordinator(client, checked);
  }

  /** The coordinator URL in its canonical form. */
  get url(): string {
    return this.client.address.url;
  }

  /** Who leads `set` now, or undefined when no one does. */
  async leader(set: string): Promise<LeaderInfo | undefined> {
    const { stored } = await this.client.get(setKeys(set).leader);
    return stored && readLeader(set, stored);
  }

  /** The members of `set` whose leases are live, with their last published positions, by name. */
  async members(set: string): Promise<MemberRecord[]> {
    const { keys } = await this.client.getPrefix(setKeys(set).members);
    return keys
      .map(readMember)
      .filter((member): member is MemberRecord => member !== undefined)
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** Calls `onChange` with `set`'s leader now and on each change (see watch-leader.ts). */
  observeLeader(
    set: string,
    onChange: (leader: LeaderInfo | undefined) => void,
  ): Promise<Observation> {
    return watchLeader(this.client, set, onChange);
  }

  /** Joins `set` as `identity` at `position`: its record is published on a lease of its own. */
  async join(set: string, identity: MemberIdentity, position: Position): Promise<Member> {
    const member = await Member.join(this.client, this.timing, set, identity, position);
    this.joined.add(member);
    return member;
  }

  /** Leaves every set joined through it (resigning what they lead) and closes the connection. */
  async close(): Promise<void> {
    await Promise.all([...this.joined].map((member) => member.leave().catch(() => {})));
    this.joined.clear();
    this.client.close();
  }
}
