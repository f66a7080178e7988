import { type ChildProcess, spawn } from 'node:child_process';

const DONE = '__snippet_done__';

export interface SnippetRun {
  /** What the snippet printed on stdout, trimmed. */
  output: string;
  /** Its exit status (that of its last command). */
  status: number;
  /** What it printed on stderr, with a `failed (N): command` line for each command that failed. */
  errors: string;
}

/**
 * One bash process that runs snippets one after the other, as a reader pasting them into one
 * terminal: shell variables and functions carry over. Every failing command is reported (ERR trap),
 * not only a snippet's last one; pipelines fail when any of their commands fails.
 */
export class ShellSession {
  private stdout = '';
  private stderr = '';
  private readonly child: ChildProcess;

  constructor(options: { cwd: string; env?: Record<string, string> }) {
    this.child = spawn('bash', [], {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stdout!.on('data', (d: Buffer) => { this.stdout += d.toString(); });
    this.child.stderr!.on('data', (d: Buffer) => { this.stderr += d.toString(); });
    this.child.stdin!.write(`set -o pipefail\ntrap 'echo "failed ($?): $BASH_COMMAND" >&2' ERR\n`);
  }

  async run(commands: string, timeoutMs = 30_000): Promise<SnippetRun> {
    this.stdout = '';
    this.stderr = '';
    // The marker starts a line of its own: curl's answers end without a newline.
    this.child.stdin!.write(`{\n${commands}\n}\n__status=$?; printf '\\n${DONE} %d\\n' "$__status"; echo ${DONE} >&2\n`);
    const deadline = Date.now() + timeoutMs;
    const marker = new RegExp(`\\n${DONE} (\\d+)\\n`);
    while (!(marker.test(this.stdout) && this.stderr.includes(`${DONE}\n`))) {
      if (this.child.exitCode !== null) throw new Error(`bash exited (${this.child.exitCode}): ${this.stderr}`);
      if (Date.now() > deadline) throw new Error(`snippet unfinished after ${timeoutMs} ms:\n${commands}\nstdout: ${this.stdout}\nstderr: ${this.stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const match = marker.exec(this.stdout)!;
    return {
      output: this.stdout.slice(0, match.index).trim(),
      status: Number(match[1]),
      errors: this.stderr.replace(`${DONE}\n`, ''),
    };
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.on('exit', resolve));
    this.child.stdin!.end();
    await exited;
  }
}
