// What a process and the machine spend while a bench phase runs, sampled every 100 ms from /proc: the
// peak RSS of one process (and its lifetime high-water mark), CPU of that process, of a PostgreSQL
// database's processes and of the machine.
import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { cpuSeconds } from './service.mjs';

const INTERVAL_MS = 100;
export const CORES = cpus().length;

const quietly = (fn, fallback) => {
  try {
    return fn();
  } catch {
    return fallback; // the process has just exited
  }
};

/** `{ rss, hwm }` of a process in MiB: its resident set now and its peak since it started (VmHWM). */
export function memoryMiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (name) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)[1]);
  return { rss: kib('VmRSS') / 1024, hwm: kib('VmHWM') / 1024 };
}

/** Seconds the main thread of a process (Node's event loop) has spent runnable but waiting for a CPU. */
const runQueueSeconds = (pid) => Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[1]) / 1e9;

/** Busy and total clock ticks of the whole machine (first line of /proc/stat). */
function machineTicks() {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
  const idle = fields[3] + fields[4]; // idle + iowait
  const total = fields.reduce((sum, n) => sum + n, 0);
  return { busy: total - idle, total };
}

/**
 * The server's processes that work for `database`: its backends (named after it in their command line)
 * and the server's own (checkpointer, WAL writer, autovacuum...), not the backends of other databases.
 */
export function postgresPids(database) {
  const pids = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = quietly(() => readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' '), '');
    if (!cmdline.startsWith('postgres') && !cmdline.includes('/bin/postgres')) continue;
    const isBackend = cmdline.includes('(') || cmdline.includes('[local]');
    if (!isBackend || cmdline.includes(` ${database} `)) pids.push(Number(entry));
  }
  return pids;
}

/**
 * Starts sampling. `pid` is the process whose RSS peak is taken (optional); `groups` names other
 * processes whose CPU is summed: `{ name: () => pids }`, called at each sample (processes come and go:
 * each one's last sample counts). `stop()` returns `{ peakRssMiB, hwmMiB, cpu: { process, ...groups, machine }, waitingPercent }`:
 * the highest RSS sampled, the process's own high-water mark (from its start), CPU in % of one core over the phase,
 * and the share of the phase the process's main thread was runnable but waited for a CPU (the machine's other load).
 */
export function startProbe({ pid, groups = {} } = {}) {
  const started = performance.now();
  const machineStart = machineTicks();
  const baseline = {};
  const last = {};
  let peakRssMiB = NaN;
  let hwmMiB = NaN;
  const waiting = { first: NaN, last: NaN };
  const sample = (first = false) => {
    const queued = pid && quietly(() => runQueueSeconds(pid), undefined);
    if (queued !== undefined) {
      if (first) waiting.first = queued;
      waiting.last = queued;
    }
    const memory = pid && quietly(() => memoryMiB(pid), undefined);
    if (memory) {
      peakRssMiB = Number.isNaN(peakRssMiB) ? memory.rss : Math.max(peakRssMiB, memory.rss);
      hwmMiB = memory.hwm;
    }
    const sets = { ...(pid ? { process: () => [pid] } : {}), ...groups };
    for (const [name, pidsOf] of Object.entries(sets)) {
      for (const p of pidsOf()) {
        const seconds = quietly(() => cpuSeconds(p), undefined);
        if (seconds === undefined) continue;
        if (first) baseline[`${name}:${p}`] = seconds;
        last[`${name}:${p}`] = seconds;
      }
    }
  };
  sample(true);
  const timer = setInterval(sample, INTERVAL_MS);
  return {
    stop() {
      clearInterval(timer);
      sample();
      const seconds = (performance.now() - started) / 1000;
      const cpu = {};
      for (const [key, value] of Object.entries(last)) {
        const name = key.slice(0, key.indexOf(':'));
        cpu[name] = (cpu[name] ?? 0) + value - (baseline[key] ?? 0);
      }
      for (const name of Object.keys(cpu)) cpu[name] = (cpu[name] / seconds) * 100;
      const machine = machineTicks();
      cpu.machine = ((machine.busy - machineStart.busy) / (machine.total - machineStart.total)) * CORES * 100;
      return { peakRssMiB, hwmMiB, cpu, waitingPercent: ((waiting.last - waiting.first) / seconds) * 100 };
    },
  };
}

/** `{ service: 120, postgres: 60 }` as "service 120 %, postgres 60 %" (of one core). */
export const cpuText = (cpu) => Object.entries(cpu).map(([name, value]) => `${name} ${Math.round(value)} %`).join(', ');
