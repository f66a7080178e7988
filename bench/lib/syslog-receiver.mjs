// The syslog receiver of the delivery bench, in a process of its own (started by bench/lib/syslog-receiver-client.mjs
// with child_process.fork), so that its parsing does not share the bench's event loop. TLS on 127.0.0.1 with the
// certificate in RECEIVER_CERT/RECEIVER_KEY; on every connection it reads RFC 5425 octet-counted frames
// (`<length> <RFC 5424 message>`) and, from each message's CEF line, the event id (`externalId`) and, for
// interaction events, the interaction id (`cs6`, labelled subjectId).
// Records: messages accepted, distinct events and interactions, duplicates (an event id seen before), the first and
// last receipt (wall-clock ms with sub-ms precision, as bench/receiver.mjs), connections, and what it could not read
// (a message without those fields; a bad frame length, which also closes the connection).
// Over IPC: sends { port } once it listens, answers { id, op: 'stats' | 'reset' | 'sample' } with { id, result };
// exits when the parent goes.
import { readFileSync } from 'node:fs';
import tls from 'node:tls';
import { secondHalfRate } from './drain-rate.mjs';

const now = () => performance.timeOrigin + performance.now();

/** RFC 5425 caps no length, but the service writes at most 1 MB a batch: 8 digits is plenty. */
const MAX_LENGTH_DIGITS = 8;
const SPACE = 0x20;
const CEF = Buffer.from('CEF:0|');
const EVENT_ID = Buffer.from(' externalId=');
const INTERACTION_CATEGORY = Buffer.from(' cat=interaction.');
const INTERACTION_ID = Buffer.from(' cs6=');

let stats;
let latest;

function reset() {
  stats = { accepted: 0, unparsable: 0, badFrames: 0, duplicates: 0, connections: 0, events: new Set(), interactions: new Set(), arrivals: [], first: null, last: null };
  latest = undefined;
}
reset();

/** The value of the CEF extension field starting after `key` in `message` (it ends at the next space), or undefined. */
function field(message, key, from) {
  const at = message.indexOf(key, from);
  if (at === -1) return undefined;
  const start = at + key.length;
  const end = message.indexOf(SPACE, start);
  return message.toString('latin1', start, end === -1 ? message.length : end);
}

function receive(message, at) {
  const cef = message.indexOf(CEF);
  const eventId = cef === -1 ? undefined : field(message, EVENT_ID, cef);
  if (eventId === undefined) {
    stats.unparsable += 1;
    return;
  }
  stats.accepted += 1;
  stats.first ??= at;
  stats.last = at;
  if (stats.events.has(eventId)) stats.duplicates += 1;
  else stats.events.add(eventId);
  if (message.indexOf(INTERACTION_CATEGORY, cef) === -1) return;
  const interactionId = field(message, INTERACTION_ID, cef);
  if (interactionId !== undefined && !stats.interactions.has(interactionId)) {
    stats.interactions.add(interactionId);
    stats.arrivals.push(at);
  }
  latest = { message, eventId, interactionId };
}

/** The frame length of `buffer` between `from` and the space at `space`: NONZERO-DIGIT *DIGIT, or null. */
function frameLength(buffer, from, space) {
  const digits = space - from;
  if (digits < 1 || digits > MAX_LENGTH_DIGITS || buffer[from] === 0x30) return null;
  let length = 0;
  for (let i = from; i < space; i += 1) {
    const digit = buffer[i] - 0x30;
    if (digit < 0 || digit > 9) return null;
    length = length * 10 + digit;
  }
  return length;
}

/** Reads the frames of one connection; a frame may span reads. */
function onConnection(socket) {
  stats.connections += 1;
  let pending = Buffer.alloc(0);
  socket.on('data', (chunk) => {
    const at = now();
    const buffer = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    let offset = 0;
    for (;;) {
      const space = buffer.indexOf(SPACE, offset);
      if (space === -1 || space - offset > MAX_LENGTH_DIGITS) {
        if (buffer.length - offset <= MAX_LENGTH_DIGITS) break;
        stats.badFrames += 1;
        socket.destroy();
        return;
      }
      const length = frameLength(buffer, offset, space);
      if (length === null) {
        stats.badFrames += 1;
        socket.destroy();
        return;
      }
      const end = space + 1 + length;
      if (end > buffer.length) break;
      receive(buffer.subarray(space + 1, end), at);
      offset = end;
    }
    pending = buffer.subarray(offset);
  });
  socket.on('error', () => {}); // a client gone mid-write: its frames so far are counted
}

function summary() {
  return {
    accepted: stats.accepted, unparsable: stats.unparsable, bad_frames: stats.badFrames, duplicates: stats.duplicates,
    connections: stats.connections, distinct_events: stats.events.size, distinct_interactions: stats.interactions.size,
    first: stats.first, last: stats.last, second_half_rate: secondHalfRate(stats.arrivals),
  };
}

const sample = () => (latest ? { message: latest.message.toString('utf8'), eventId: latest.eventId, interactionId: latest.interactionId } : null);

const server = tls.createServer({ cert: readFileSync(process.env.RECEIVER_CERT), key: readFileSync(process.env.RECEIVER_KEY) }, onConnection);
server.on('tlsClientError', () => {});

process.on('message', ({ id, op }) => {
  if (op === 'reset') reset();
  const result = op === 'stats' ? summary() : op === 'sample' ? sample() : op === 'reset' ? { ok: true } : { error: `unknown op ${op}` };
  process.send({ id, result });
});

server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('disconnect', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
