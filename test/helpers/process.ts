import { type ChildProcess, spawn } from 'node:child_process';
import { TEST_MASTER_KEY } from './keyring.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';

const CLI = join(import.meta.dirname, '../../dist/cli.js');

export function tempDir(prefix = 'ugs-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/**
 * A port no one listens on, for a process started next. Taken below the kernel's range of
 * ephemeral ports (32768 and up): a port from that range can be handed to any outgoing connection
 * (the tests open thousands to PostgreSQL) between this check and the process's listen. Each
 * test worker has a range of its own and walks it, so no two calls hand out the same port.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = PORTS_FROM + (Number(process.env.VITEST_POOL_ID ?? 0) % WORKER_RANGES) * PORTS_PER_WORKER + (nextPort++ % PORTS_PER_WORKER);
    if (await canListen(port)) return port;
  }
}

/** 20000-31999 in 24 ranges of 500: distinct for up to 23 workers and the main process (pool id 0). */
const PORTS_FROM = 20_000;
const PORTS_PER_WORKER = 500;
const WORKER_RANGES = 24;
let nextPort = Math.floor(Math.random() * PORTS_PER_WORKER);

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** The built CLI as a child process, with its output collected. */
export class ServiceProcess {
  stdout = '';
  stderr = '';
  /** Both streams, in the order they arrived. */
  output = '';
  readonly exited: Promise<number | null>;

  constructor(readonly child: ChildProcess) {
    child.stdout?.on('data', (d: Buffer) => {
      this.stdout += d.toString();
      this.output += d.toString();
    });
    child.stderr?.on('data', (d: Buffer) => {
      this.stderr += d.toString();
      this.output += d.toString();
    });
    this.exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  }

  /** `options.cli`: another build's CLI (an earlier release), instead of this one's. */
  static start(args: string[], env: Record<string, string>, options: { cwd?: string; cli?: string } = {}): ServiceProcess {
    // On PostgreSQL a process needs the master key; the tests' one, unless the test sets its own (or '' for none).
    const key = env.DATABASE_URL && !('DATA_ENCRYPTION_KEY' in env) ? { DATA_ENCRYPTION_KEY: TEST_MASTER_KEY } : {};
    const child = spawn(process.execPath, [options.cli ?? CLI, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'info', ...key, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      cwd: options.cwd,
    });
    return new ServiceProcess(child);
  }

  /** Runs a CLI command to completion. */
  static async run(
    args: string[], env: Record<string, string>, options: { cwd?: string; cli?: string; killAfterMs?: number } = {},
  ): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const proc = ServiceProcess.start(args, env, options);
    // A command that hangs is killed, and then has no exit code (null).
    const killer = options.killAfterMs ? setTimeout(() => proc.child.kill('SIGKILL'), options.killAfterMs) : undefined;
    const code = await proc.exited;
    clearTimeout(killer);
    return { code, stdout: proc.stdout, stderr: proc.stderr };
  }

  /**
   * Waits until `url` answers 2xx (the service is up), or the process exits. The default is long
   * on purpose: a first start on the loaded 2-core machine took up to ~45 s (it only bounds a failure).
   */
  async waitUntilReady(url: string, timeoutMs = 120_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let exited = false;
    void this.exited.then(() => (exited = true));
    while (Date.now() < deadline && !exited) {
      const ok = await fetch(url).then((r) => r.ok, () => false);
      if (ok) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    // The test fails here: a service left running would hold its port and store after the run.
    this.child.kill('SIGKILL');
    throw new Error(`service not ready at ${url}\nstdout: ${this.stdout}\nstderr: ${this.stderr}`);
  }

  /** Waits until the output matches `pattern`; returns the match. */
  async waitForOutput(pattern: RegExp, timeoutMs = 30_000): Promise<RegExpMatchArray> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const match = pattern.exec(this.output);
      if (match) return match;
      if (this.child.exitCode !== null) throw new Error(`process exited (${this.child.exitCode}):\n${this.output}`);
      if (Date.now() > deadline) throw new Error(`no ${pattern} within ${timeoutMs} ms:\n${this.output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Lines of the JSON log whose `msg` is `message`. */
  logLines(message: string): Array<Record<string, unknown>> {
    return this.output.split('\n').filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.msg === message);
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
    return this.exited;
  }
}
