/**
 * What a client remembers of the SQL texts it sends, so that `query(sql, params)` in a loop
 * runs by handle without the application asking: a text is sent as text the first time and
 * prepared the second (as pgjdbc's prepareThreshold does), then sent by its handle. It only
 * remembers; the requests are docdb-client.ts's.
 */

/** Texts a client remembers (seen once, or prepared); past it the oldest is forgotten. */
export const CLIENT_STATEMENTS_MAX = 1000;

/** Marks a text sent once by text and not yet prepared. */
const SEEN_ONCE = '';

/** Each remembered text's handle, or SEEN_ONCE; bounded by CLIENT_STATEMENTS_MAX. */
export class StatementHandles {
  private readonly texts = new Map<string, string>();
  /** Set when the server has no POST /query/prepare (an older node): always send text. */
  private unsupported = false;

  /** The handle to send `sql` by, if it is prepared. */
  handleOf(sql: string): string | undefined {
    const handle = this.texts.get(sql);
    return handle === SEEN_ONCE ? undefined : handle;
  }

  /**
   * Whether to prepare `sql` now: true the second time it is sent; the first time it is only
   * noted, so a statement run once costs no extra request.
   */
  due(sql: string): boolean {
    if (this.unsupported) return false;
    if (this.texts.get(sql) === SEEN_ONCE) return true;
    this.remember(sql, SEEN_ONCE);
    return false;
  }

  /** Notes `handle` as the one to send `sql` by. */
  remember(sql: string, handle: string): void {
    if (!this.texts.has(sql) && this.texts.size >= CLIENT_STATEMENTS_MAX) {
      this.texts.delete(this.texts.keys().next().value as string);
    }
    this.texts.set(sql, handle);
  }

  /** Forgets the handle of `sql` (the server no longer holds it). */
  forget(sql: string): void {
    this.texts.delete(sql);
  }

  /** Stops preparing: the server answers no POST /query/prepare. */
  disable(): void {
    this.unsupported = true;
    this.texts.clear();
  }
}
