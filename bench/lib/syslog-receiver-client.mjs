// Starts bench/lib/syslog-receiver.mjs in its own process and asks it for its figures over IPC.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { trackChild } from './cleanup.mjs';
import { pollStats, stopChild } from './receiver-process.mjs';

const RECEIVER = fileURLToPath(new URL('./syslog-receiver.mjs', import.meta.url));

export async function startSyslogReceiver({ certFile, keyFile }) {
  const child = trackChild(fork(RECEIVER, [], {
    env: { PATH: process.env.PATH, RECEIVER_CERT: certFile, RECEIVER_KEY: keyFile },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  }));
  const answers = new Map();
  let lastId = 0;
  let gone;
  const { port } = await new Promise((resolve, reject) => {
    child.on('message', (message) => {
      if (message.port !== undefined) return resolve(message);
      answers.get(message.id)?.resolve(message.result);
      answers.delete(message.id);
    });
    child.once('exit', (code) => {
      gone = new Error(`syslog receiver exited (${code})`);
      reject(gone);
      for (const { reject: fail } of answers.values()) fail(gone);
      answers.clear();
    });
  });
  const call = (op) => new Promise((resolve, reject) => {
    if (gone) return reject(gone);
    lastId += 1;
    answers.set(lastId, { resolve, reject });
    child.send({ id: lastId, op });
  });
  const stats = () => call('stats');
  return {
    port,
    url: `syslog+tls://127.0.0.1:${port}`,
    stats,
    /** Forgets every message and connection so far. */
    reset: () => call('reset'),
    /** The latest interaction message received, `{ message, eventId, interactionId }`, or null. */
    sample: () => call('sample'),
    /** Polls until `enough(summary)` or `budgetMs` passes; returns `{ summary, reached }`. */
    waitFor: (enough, budgetMs) => pollStats(stats, enough, budgetMs),
    close: () => stopChild(child),
  };
}
