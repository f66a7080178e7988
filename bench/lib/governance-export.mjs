// The governance bench's export figures: a streamed export read to its end while the service's resident
// memory is sampled from /proc, and the limits beside it (PostgreSQL's own COPY through psql; on the
// embedded store, the same rows turned to text by the store in one statement).
import { spawn } from 'node:child_process';
import http from 'node:http';
import { rssMiB } from './service.mjs';

const MiB = 1024 * 1024;
const SAMPLE_MS = 50;
const NEWLINE = 0x0a;

/** The columns the CSV export writes, read from the table as they are stored. */
export const EXPORT_COLUMNS = 'id, timestamp, platform_id, content_hash, interaction_type, direction, source, user_id, risk_score, '
  + 'classifications, policy_decisions, content_metadata';
export const newestFirst = (tenantId) => `select ${EXPORT_COLUMNS} from interactions where tenant_id = '${tenantId}'
  order by timestamp desc, id desc`;

function countLines(chunk) {
  let lines = 0;
  for (let at = chunk.indexOf(NEWLINE); at !== -1; at = chunk.indexOf(NEWLINE, at + 1)) lines += 1;
  return lines;
}

/**
 * GETs `path` and reads the streamed file to its end, counting bytes and lines, while the resident memory
 * of the service process `pid` is sampled every 50 ms: `{ status, bytes, lines, seconds, rssBefore,
 * rssPeak, rssPeakFirstTenth }` (MiB; the last one is the peak while the first tenth of `expectedLines` came).
 */
export function download(base, token, path, pid, expectedLines) {
  const rssBefore = rssMiB(pid);
  let rssPeak = rssBefore;
  let rssPeakFirstTenth = rssBefore;
  let lines = 0;
  let bytes = 0;
  const sampler = setInterval(() => {
    const rss = rssMiB(pid);
    rssPeak = Math.max(rssPeak, rss);
    if (lines < expectedLines / 10) rssPeakFirstTenth = Math.max(rssPeakFirstTenth, rss);
  }, SAMPLE_MS);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const request = http.get(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } }, (response) => {
      response.on('data', (chunk) => {
        bytes += chunk.length;
        lines += countLines(chunk);
      });
      response.on('end', () => {
        clearInterval(sampler);
        resolve({
          status: response.statusCode, bytes, lines, seconds: (performance.now() - started) / 1000,
          rssBefore, rssPeak: Math.max(rssPeak, rssMiB(pid)), rssPeakFirstTenth,
        });
      });
      response.on('error', reject);
    });
    request.on('error', (error) => {
      clearInterval(sampler);
      reject(error);
    });
  });
}

/** `COPY (the same rows, newest first) TO STDOUT (FORMAT csv)` through psql, read to its end: `{ bytes, lines, seconds }`. */
export function psqlCopy(url, tenantId) {
  const started = performance.now();
  const copy = `copy (${newestFirst(tenantId)}) to stdout (format csv, header)`;
  const child = spawn('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', url, '-c', copy], { stdio: ['ignore', 'pipe', 'inherit'] });
  let bytes = 0;
  let lines = 0;
  child.stdout.on('data', (chunk) => {
    bytes += chunk.length;
    lines += countLines(chunk);
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => (code === 0
      ? resolve({ bytes, lines, seconds: (performance.now() - started) / 1000 })
      : reject(new Error(`psql COPY exited with ${code}`))));
  });
}

/** The store turning the same rows to text in one statement, nothing sent (the embedded store has no COPY client): `{ bytes, seconds }`. */
export async function storeText(db, sql, tenantId) {
  const started = performance.now();
  const { rows: [row] } = await sql.raw(`select sum(octet_length(t::text))::bigint as bytes from (${newestFirst(tenantId)}) t`).execute(db);
  return { bytes: Number(row.bytes), seconds: (performance.now() - started) / 1000 };
}

export const mib = (bytes) => bytes / MiB;
