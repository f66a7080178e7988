// Loaded into a service process with `--import` by the live measures (bench/lib/queries-live-data.mjs `spreadClock`):
// the service stamps each interaction with its own clock (sent timestamps are ignored), so to send months of history
// through the API in minutes this moves that clock. `Date.now()` and `new Date()` return the real time plus the
// offset in ms written in BENCH_CLOCK_FILE (read every 20 ms), never going back.
import { readFileSync } from 'node:fs';

const RealDate = Date;
const realNow = RealDate.now;
let offset = 0;
let last = -Infinity;

function read() {
  try {
    const value = Number(readFileSync(process.env.BENCH_CLOCK_FILE, 'utf8'));
    if (Number.isFinite(value)) offset = value;
  } catch {
    // keep the last offset
  }
}
read();
setInterval(read, 20).unref();

const now = () => {
  last = Math.max(last, realNow() + offset);
  return last;
};

globalThis.Date = new Proxy(RealDate, {
  construct: (target, args, newTarget) => Reflect.construct(target, args.length ? args : [now()], newTarget),
  apply: () => new RealDate(now()).toString(),
  get: (target, key, receiver) => (key === 'now' ? now : Reflect.get(target, key, receiver)),
});
