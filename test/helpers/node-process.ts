import { type ChildProcess, spawn } from 'node:child_process';

/** A Node script as a child process, with its output collected and waited on. */
export class NodeProcess {
  stdout = '';
  stderr = '';
  readonly exited: Promise<number | null>;

  private constructor(readonly child: ChildProcess) {
    child.stdout?.on('data', (d: Buffer) => { this.stdout += d.toString(); });
    child.stderr?.on('data', (d: Buffer) => { this.stderr += d.toString(); });
    this.exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  }

  static start(script: string, args: string[], env: Record<string, string>): NodeProcess {
    return new NodeProcess(spawn(process.execPath, [script, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    }));
  }

  /** The non-empty lines of stdout. */
  get lines(): string[] {
    return this.stdout.split('\n').filter((line) => line.length > 0);
  }

  async waitFor(predicate: (p: NodeProcess) => boolean, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this)) {
      if (this.child.exitCode !== null) throw new Error(`the process exited (${this.child.exitCode}): ${this.stderr}`);
      if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms; stdout: ${this.stdout} stderr: ${this.stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null) {
      this.child.kill('SIGTERM');
      await this.exited;
    }
  }
}
