/**
 * Reads a GET /changes answer over a real socket, line by line (NDJSON) or event by event
 * (SSE), with a bounded wait on every read; it can stop reading (backpressure) or hang up.
 */

import * as http from 'node:http';

/** How long one read waits before the test fails. */
export const FEED_READ_TIMEOUT_MS = 10_000;

/** One SSE event: its fields as sent (`comment` for `:` lines). */
export interface SseEvent {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
}

export interface FeedReader {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The next NDJSON line, parsed. */
  nextLine(): Promise<Record<string, unknown>>;
  /** The next SSE event (a blank-line-ended block). */
  nextEvent(): Promise<SseEvent>;
  /** The rest of the body once the server ends it. */
  rest(): Promise<string>;
  /** Stops reading from the socket (the server's writes then back up). */
  pause(): void;
  resume(): void;
  /** Hangs up. */
  close(): void;
}

/** Opens `url` (a GET) and answers once the status and headers are in. */
export function openFeed(url: string, headers: Record<string, string> = {}): Promise<FeedReader> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers, agent: false }, (res) => {
      let buffer = '';
      let ended = false;
      let notify: (() => void) | undefined;
      res.setEncoding('utf8');
      res.on('data', (text: string) => {
        buffer += text;
        notify?.();
      });
      res.on('end', () => {
        ended = true;
        notify?.();
      });
      res.on('error', () => {
        ended = true;
        notify?.();
      });
      const until = async (separator: string): Promise<string> => {
        const deadline = Date.now() + FEED_READ_TIMEOUT_MS;
        for (;;) {
          const at = buffer.indexOf(separator);
          if (at >= 0) {
            const piece = buffer.slice(0, at);
            buffer = buffer.slice(at + separator.length);
            return piece;
          }
          if (ended) throw new Error(`the feed ended; left unread: ${buffer.slice(0, 200)}`);
          const left = deadline - Date.now();
          if (left <= 0) throw new Error(`no '${JSON.stringify(separator)}' within the wait`);
          await new Promise<void>((wake) => {
            const timer = setTimeout(wake, left);
            notify = () => {
              clearTimeout(timer);
              wake();
            };
          });
        }
      };
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        nextLine: async () => JSON.parse(await until('\n')),
        nextEvent: async () => parseEvent(await until('\n\n')),
        rest: async () => {
          // No NUL ever comes: this waits for the end, within the bounded wait.
          await until('\u0000').catch((error: Error) => {
            if (!ended) throw error;
          });
          return buffer;
        },
        pause: () => res.pause(),
        resume: () => res.resume(),
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
  });
}

function parseEvent(block: string): SseEvent {
  const event: SseEvent = {};
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) event.comment = line.slice(1).trim();
    else {
      const at = line.indexOf(':');
      const name = line.slice(0, at) as 'id' | 'event' | 'data';
      event[name] = line.slice(at + 1).trimStart();
    }
  }
  return event;
}
