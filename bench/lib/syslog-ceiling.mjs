// The syslog receiver's ceiling, measured in the same run as the drain it bounds: a plain client in this process
// writing, on one TLS connection, the frames of a message the receiver got from the service, each copy with
// distinct event and interaction ids, as fast as the socket takes them.
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import tls from 'node:tls';
import { perSecond } from './delivery-common.mjs';
import { SECONDS } from './service.mjs';

/** Frames per write, as the service's batches of a syslog webhook. */
export const SYSLOG_FRAMES_PER_WRITE = 500;

/** `original` with its last 12 characters (hex in both ids) replaced by `n` in hex: same length, distinct per `n`. */
const distinctLike = (original, n) => `${original.slice(0, -12)}${n.toString(16).padStart(12, '0')}`;

/** Makes the n-th copy of `sample.message` as one octet-counted frame (the ids keep their length, so does the frame). */
function framer({ message, eventId, interactionId }) {
  const parts = message.split(new RegExp(`(${eventId}|${interactionId})`));
  const header = `${Buffer.byteLength(message)} `;
  return (n) => header + parts.map((part, i) => (i % 2 === 0 ? part : distinctLike(part, n))).join('');
}

/**
 * Resets the receiver, then writes for BENCH_SECONDS and waits for the receiver to have read every frame.
 * `{ messagesPerSecond, written, received, messageBytes }`: the rate is the receiver's, (n - 1) / (last - first receipt).
 */
export async function measureSyslogCeiling(receiver, caFile) {
  const sample = await receiver.sample();
  if (!sample?.interactionId) throw new Error('no interaction message received to measure the syslog ceiling with');
  const frame = framer(sample);
  await receiver.reset();
  const socket = tls.connect({ host: '127.0.0.1', port: receiver.port, ca: readFileSync(caFile) });
  let written = 0;
  try {
    await once(socket, 'secureConnect');
    socket.setNoDelay(true);
    const end = performance.now() + SECONDS * 1000;
    while (performance.now() < end) {
      let batch = '';
      for (let i = 0; i < SYSLOG_FRAMES_PER_WRITE; i += 1) batch += frame(written + i);
      written += SYSLOG_FRAMES_PER_WRITE;
      if (!socket.write(batch)) await once(socket, 'drain');
    }
    await new Promise((resolve) => socket.end(resolve));
  } finally {
    socket.destroySoon();
  }
  const { summary, reached } = await receiver.waitFor((s) => s.accepted + s.unparsable >= written, 60_000);
  if (!reached || summary.distinct_interactions !== written) {
    throw new Error(`syslog ceiling: the receiver read ${summary.distinct_interactions} of ${written} messages (${summary.unparsable} unparsable, ${summary.bad_frames} bad frames)`);
  }
  return {
    messagesPerSecond: perSecond(summary.distinct_interactions, summary.first, summary.last),
    written, received: summary.accepted, messageBytes: Buffer.byteLength(sample.message),
  };
}
