/**
 * The served phase's second load generator: one wrk run (one thread, issue 25) over a table
 * of requests sent in order, through a Lua script and a file of the requests written to a
 * temp dir and removed afterwards. It owns the script and the parsing of what wrk prints; which loads wrk drives
 * is load-worker.ts's choice. The only caller of the `wrk` command.
 */

import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { LoadOutcome } from './load-worker.js';

/** One request of the table, sent as written. */
export interface WrkRequest {
  method: string;
  path: string;
  body?: string;
}

/** What the script's `done` prints: wrk's own counts, its latencies in microseconds. */
interface WrkSummary {
  requests: number;
  durationUs: number;
  p50Us: number;
  p99Us: number;
  connect: number;
  read: number;
  write: number;
  /** Answers with a status of 400 or more (wrk counts no other as an error). */
  status: number;
  timeout: number;
}

/** What wrk says its version is (`wrk -v`), or undefined when `wrk` is not on PATH. */
export function wrkVersion(): string | undefined {
  const run = spawnSync('wrk', ['-v'], { encoding: 'utf8' });
  if (run.error) return undefined;
  return /^wrk (\S+)/m.exec(run.stdout)?.[1] ?? 'unknown';
}

/**
 * The note of a run without wrk: which rows autocannon drove instead, and why that caps them
 * on a small machine.
 */
export function wrkMissingNote(cores: number): string {
  return `wrk is not on PATH: autocannon drives this run's point rows (GET by \`_id\`, point \`/query\` by text and by handle, the every-core and reads-while-writing reads, the router point lookup). autocannon is a Node process that needs about a core of its own for ~34,000 requests/s, so on a machine of ${cores} cores it caps those rows: on the 2-core machine of issue 25 the HTTP ceiling answered 34,000 GETs/s under autocannon and 50,000–56,000 under \`wrk -t1\`. Install it with \`apt-get install -y wrk\` (Debian) and run again.`;
}

/**
 * The requests as lines for the script to read (method, path and body, tab-separated). The
 * requests are printable ASCII, so no field holds a tab or a line end; anything else is
 * refused rather than sent changed.
 */
export function wrkRequestLines(requests: WrkRequest[]): string {
  return requests
    .map((r) => {
      const fields = [r.method, r.path, ...(r.body === undefined ? [] : [r.body])];
      for (const field of fields) {
        if (!/^[\x20-\x7e]*$/.test(field)) {
          throw new Error(`a wrk request must be printable ASCII; got ${JSON.stringify(field)}`);
        }
      }
      return `${fields.join('\t')}\n`;
    })
    .join('');
}

/**
 * The Lua script of a run: the requests of `requestsFile` (wrkRequestLines) formatted once
 * when wrk starts its thread and sent in order (the keys are the harness's seeded sequence,
 * not Lua's random), and a `done` that prints one JSON line of the summary (wrkOutcomeOf
 * reads it). They are read from a file, not written into the script: a Lua function holds a
 * bounded number of constants.
 */
export function wrkScript(requestsFile: string): string {
  return `local headers = { ["content-type"] = "application/json" }
local formatted = {}
local at = 0

-- After wrk.init, which sets the Host header wrk.format copies into each request.
function init(args)
  for line in io.lines(${JSON.stringify(requestsFile)}) do
    local method, path, body = line:match("^([^\t]*)\t([^\t]*)\t?(.*)$")
    if body == "" then body = nil end
    formatted[#formatted + 1] = wrk.format(method, path, headers, body)
  end
end

function request()
  at = at % #formatted + 1
  return formatted[at]
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"durationUs":%d,"p50Us":%d,"p99Us":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.connect, e.read, e.write, e.status, e.timeout))
end
`;
}

/**
 * The outcome of a run from wrk's stdout (its own report, then the script's JSON line).
 * The whole-millisecond percentiles are floored (autocannon's come from its histogram).
 */
export function wrkOutcomeOf(stdout: string): LoadOutcome {
  const line = stdout
    .split('\n')
    .reverse()
    .find((l) => l.startsWith('{"requests":'));
  if (line === undefined) throw new Error(`wrk printed no summary line:\n${stdout}`);
  const s = JSON.parse(line) as WrkSummary;
  return {
    requests: s.requests,
    elapsedMs: s.durationUs / 1000,
    p50Ms: Math.floor(s.p50Us / 1000),
    p99Ms: Math.floor(s.p99Us / 1000),
    p50MsExact: s.p50Us / 1000,
    p99MsExact: s.p99Us / 1000,
    errors: s.connect + s.read + s.write,
    timeouts: s.timeout,
    non2xx: s.status,
  };
}

/** How long and how hard one wrk run loads `url`. */
export interface WrkRun {
  url: string;
  connections: number;
  /** wrk takes whole seconds: a fractional duration (a quick run's 1.5) is rounded up. */
  durationSeconds: number;
  timeoutSeconds: number;
}

/**
 * Runs wrk with one thread over `requests` and answers its outcome. wrk has no early stop
 * that still reports (on SIGINT it still runs out its duration), so on SIGTERM this ends wrk and
 * fails: a load stopped early beside another (the writers) is autocannon's.
 */
export async function runWrk(run: WrkRun, requests: WrkRequest[]): Promise<LoadOutcome> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docdb-bench-wrk-'));
  try {
    const script = path.join(dir, 'requests.lua');
    const lines = path.join(dir, 'requests.txt');
    fs.writeFileSync(lines, wrkRequestLines(requests));
    fs.writeFileSync(script, wrkScript(lines));
    const args = [
      '-t1',
      `-c${run.connections}`,
      `-d${Math.ceil(run.durationSeconds)}s`,
      '--timeout',
      `${run.timeoutSeconds}s`,
      '-s',
      script,
      run.url,
    ];
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const stop = () => child.kill();
    process.once('SIGTERM', stop);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const end = await new Promise<string>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code, signal) => resolve(signal ?? String(code)));
    });
    process.off('SIGTERM', stop);
    if (end !== '0')
      throw new Error(`wrk ${args.join(' ')} ended with ${end}:\n${stderr}${stdout}`);
    return wrkOutcomeOf(stdout);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
