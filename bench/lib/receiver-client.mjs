// Starts bench/receiver.mjs in its own process and drives it through its control API.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { trackChild } from './cleanup.mjs';
import { pollStats, stopChild } from './receiver-process.mjs';

const RECEIVER = fileURLToPath(new URL('../receiver.mjs', import.meta.url));

export async function startReceiver({ certFile, keyFile }) {
  const child = trackChild(fork(RECEIVER, [], {
    env: { PATH: process.env.PATH, RECEIVER_CERT: certFile, RECEIVER_KEY: keyFile, RECEIVER_SLOW_MS: process.env.RECEIVER_SLOW_MS ?? '1000' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  }));
  const { httpsPort, controlPort } = await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`receiver exited (${code}) before listening`)));
  });
  const control = `http://127.0.0.1:${controlPort}`;
  const call = async (method, path, body) => {
    const response = await fetch(`${control}${path}`, {
      method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`receiver ${method} ${path}: ${response.status}`);
    return response.json();
  };
  const stats = (path, params = {}) => call('GET', `/stats?${new URLSearchParams({ path, ...params })}`);
  return {
    pid: child.pid,
    url: (path) => `https://127.0.0.1:${httpsPort}${path}`,
    setSecret: (path, secret) => call('POST', '/secret', { path, secret }),
    reset: () => call('POST', '/reset'),
    stats,
    /** Stats of `path` with `interactions` and `events`: `{ id: first receipt time }`. */
    receipts: (path) => stats(path, { receipts: '1' }),
    sample: () => call('GET', '/sample'),
    /** Polls until `enough(summary)` or `budgetMs` passes; returns `{ summary, reached }`. */
    waitFor: (path, enough, budgetMs) => pollStats(() => stats(path), enough, budgetMs),
    close: () => stopChild(child),
  };
}
