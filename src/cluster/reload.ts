/**
 * A router that follows its cluster.json: the file is checked every second and, when its
 * content changes and validates, a new Router over the new topology serves every request that
 * starts from then on. Requests already running finish on the router they started with, which
 * is closed once they have had time to (RELOAD_GRACE_MS). A file that fails to validate is
 * reported and the running topology stays. This is how routers pick up the topology a
 * rebalance moved documents to, without a restart (ADR 0014).
 */

import * as fs from 'node:fs';
import type { ClusterConfig } from './config.js';
import { readClusterConfig } from './config-file.js';
import { Router } from './router.js';
import type { RouterOptions } from './shard-set.js';

/** How often the file's size and modification time are looked at. */
export const RELOAD_CHECK_MS = 1_000;
/** How long a replaced router keeps its shard connections for requests still running. */
export const RELOAD_GRACE_MS = 60_000;

/** Where a request finds the router to use; the app closes it with itself. */
export interface RouterSource {
  current(): Router;
  close(): Promise<void>;
}

export interface ReloadEvents {
  /** A new topology serves from now on. */
  reloaded?(config: ClusterConfig, previous: ClusterConfig): void;
  /** The file changed but cannot be used; the running topology stays. */
  refused?(error: unknown): void;
}

export class ReloadingRouter implements RouterSource {
  private router: Router;
  private text: string;
  private readonly retired = new Set<{ router: Router; timer: NodeJS.Timeout }>();
  private checking: Promise<void> = Promise.resolve();
  private closed = false;
  private readonly onChange = () => {
    this.checking = this.checking.then(() => this.check());
  };

  constructor(
    private readonly file: string,
    config: ClusterConfig,
    private readonly events: ReloadEvents = {},
    private readonly options: RouterOptions & { checkMs?: number; name?: string } = {},
  ) {
    this.router = new Router(config, options);
    this.text = JSON.stringify(config);
    fs.watchFile(file, { interval: options.checkMs ?? RELOAD_CHECK_MS }, this.onChange);
    // The watcher compares against its own first look at the file, taken on the thread pool;
    // a change made before that look (or after the caller read the file) shows no difference
    // to it, so the file is read once more here.
    this.onChange();
  }

  current(): Router {
    return this.router;
  }

  /** Reads the file now and switches when its topology differs (the watcher calls this). */
  async check(): Promise<void> {
    if (this.closed) return;
    let next: ClusterConfig;
    try {
      next = await readClusterConfig(this.file);
    } catch (error) {
      this.events.refused?.(error);
      return;
    }
    const text = JSON.stringify(next);
    if (text === this.text || this.closed) return;
    const previous = this.router;
    // The statements carry over: a parse or a prepared handle does not depend on topology.
    this.router = new Router(next, this.options, previous.statements);
    this.text = text;
    const timer = setTimeout(() => {
      this.retired.delete(entry);
      void previous.close();
    }, RELOAD_GRACE_MS);
    timer.unref();
    const entry = { router: previous, timer };
    this.retired.add(entry);
    this.events.reloaded?.(next, previous.config);
  }

  async close(): Promise<void> {
    this.closed = true;
    fs.unwatchFile(this.file, this.onChange);
    await this.checking;
    const closing = [...this.retired].map(({ router, timer }) => {
      clearTimeout(timer);
      return router.close();
    });
    this.retired.clear();
    await Promise.all([...closing, this.router.close()]);
  }
}
