import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Compiles src/ into dist/ (what `npm start` runs), once per test file that needs processes. */
export function buildDist(): void {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { stdio: 'pipe' });
  if (!existsSync('dist/cli.js')) throw new Error('the build did not produce dist/cli.js');
}

/** `node dist/cli.js <args>` with its output kept in memory. */
export class ServiceProcess {
  output = '';
  private readonly exited: Promise<number | null>;

  private constructor(readonly child: ChildProcess) {
    child.stdout!.on('data', (chunk: Buffer) => {
      this.output += chunk.toString('utf8');
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      this.output += chunk.toString('utf8');
    });
    this.exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  }

  static start(args: string[], env: Record<string, string>): ServiceProcess {
    const child = spawn(process.execPath, ['dist/cli.js', ...args], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return new ServiceProcess(child);
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
