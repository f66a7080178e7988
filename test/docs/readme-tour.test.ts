import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeBlocks, differences, parseShownJson, section, shapePattern, snippets, subheadings, type CodeBlock } from '../helpers/markdown.js';
import { NodeProcess } from '../helpers/node-process.js';
import { ServiceProcess, freePort, tempDir } from '../helpers/process.js';
import { ShellSession } from '../helpers/shell-session.js';
import { STORES, createPostgresDatabase } from '../helpers/stores.js';

// The README's "First login" and "A tour", run as written: its shell blocks in one bash session
// beside the service (a real process on an empty store), the placeholders filled the way a reader
// fills them, and every answer checked against the one the README shows.

const ROOT = join(import.meta.dirname, '../..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const LOCAL_WEBHOOKS = join(ROOT, 'examples/receiver/local.mjs');

const TOUR_SECTIONS = [
  '### An API key for the browser extensions and proxies',
  '### Report interactions',
  '### A policy that blocks card numbers',
  '### The alert, and resolving it',
  '### The numbers',
  '### Invite a teammate',
  '### A webhook to the example receiver',
  '### Everything else',
];
// Blocks a reader runs in another terminal, not in the tour's shell.
const START_RECEIVER = 'npm run webhooks:local';
const RESTART_SERVICE = 'WEBHOOK_ALLOW_PRIVATE_TARGETS=true WEBHOOK_CA_FILE=.local-webhooks/ca.pem npm start';

const tour = section(README, '## A tour');
/** The tour's own text (before its first subsection), and each subsection by heading. */
const steps: Array<{ heading: string; blocks: CodeBlock[] }> = [
  { heading: '## First login', blocks: codeBlocks(section(README, '## First login')) },
  { heading: '## A tour', blocks: codeBlocks(tour.slice(0, tour.indexOf(TOUR_SECTIONS[0]!))) },
  ...TOUR_SECTIONS.map((heading) => ({ heading, blocks: codeBlocks(section(tour, heading)) })),
];

/** Runs a shell line with `npm start` replaced by `env`: the variables it starts the service with. */
function variablesOf(startLine: string, cwd: string): Record<string, string> {
  const printed = execFileSync('bash', ['-c', startLine.replace(/ npm start$/, ' env')], { cwd, env: { PATH: process.env.PATH ?? '' } }).toString();
  return Object.fromEntries(printed.trim().split('\n')
    .map((line) => line.split(/=(.*)/s).slice(0, 2) as [string, string]).filter(([name]) => name.startsWith('WEBHOOK_')));
}

it('the README keeps the tour\'s shape: its sections, in order', () => {
  expect(subheadings(tour)).toEqual(TOUR_SECTIONS);
  expect(steps.flatMap((step) => step.blocks).filter((block) => block.lang === 'sh').length).toBeGreaterThanOrEqual(14);
});

describe.each(STORES)('the README tour, run as written on a fresh start [%s]', (kind) => {
  // The clone's root as the reader's terminals see it: `./data` and `.local-webhooks/` are made there.
  const cwd = tempDir('ugs-readme-tour-');
  const cleanups: Array<() => Promise<void>> = [];
  let storeEnv: Record<string, string> = {};
  let port: number;
  let service: ServiceProcess;
  let shell: ShellSession;
  let receiver: NodeProcess | undefined;
  let receiverPort: number;
  let password: string;
  let lastToken: string | undefined;

  const startService = async (env: Record<string, string>) => {
    // The README's port, moved: PUBLIC_BASE_URL (links in emails) defaults to that of port 8080.
    service = ServiceProcess.start(['serve'], { ...storeEnv, ...env, PORT: String(port), PUBLIC_BASE_URL: `http://localhost:${port}` }, { cwd });
    await service.waitUntilReady(`http://127.0.0.1:${port}/readyz`);
  };

  beforeAll(async () => {
    if (kind === 'postgres') {
      const database = await createPostgresDatabase();
      storeEnv = { DATABASE_URL: database.url };
      cleanups.push(database.drop);
    }
    port = await freePort();
    receiverPort = await freePort();
    await startService({});
    password = /password: (\S+)/.exec(service.stdout)![1]!;
    shell = new ShellSession({ cwd });
  });
  afterAll(async () => {
    await shell?.close();
    await receiver?.stop();
    await service?.stop();
    for (const cleanup of cleanups) await cleanup();
    rmSync(cwd, { recursive: true, force: true });
  });

  /** What a reader types instead of each placeholder, found where the reader finds it. */
  const fill = async (commands: string): Promise<string> => {
    let filled = commands.replaceAll('localhost:8080', `localhost:${port}`)
      .replaceAll('<printed password>', password);
    if (filled.includes('Bearer ugt_…')) filled = filled.replaceAll('Bearer ugt_…', `Bearer ${lastToken!}`);
    if (filled.includes('"token":"inv_…"')) filled = filled.replaceAll('"token":"inv_…"', `"token":"${await invitationToken()}"`);
    if (filled.includes('<the curl line printed by npm run webhooks:local>')) {
      filled = filled.replaceAll('<the curl line printed by npm run webhooks:local>', /^curl .+$/m.exec(receiver!.stderr)![0]);
    }
    expect(filled, 'a placeholder the test does not know how to fill').not.toMatch(/…|<[^>]+>/);
    return filled;
  };

  /** The invitation's token, from the link in the email the service logs (a moment after the invitation). */
  const invitationToken = async (): Promise<string> => {
    await service.waitForOutput(/email to dana@example\.com/);
    const mail = service.output.split('\n').filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg?: string })
      .find((line) => line.msg?.startsWith('email to dana@example.com'))!;
    const link = new RegExp(`http://localhost:${port}/accept-invite\\?token=(inv_[\\w-]+)`).exec(mail.msg!);
    expect(link, mail.msg).not.toBeNull();
    return link![1]!;
  };

  /** Checks an answer against the one the README shows after `# -> `. */
  const expectShown = (output: string, shown: string) => {
    const expected = shown.replaceAll('localhost:8080', `localhost:${port}`).replaceAll('127.0.0.1:8443', `127.0.0.1:${receiverPort}`);
    if (/^[[{]/.test(expected)) {
      expect(() => JSON.parse(output), output).not.toThrow();
      expect(differences(JSON.parse(output), parseShownJson(expected)), output).toEqual([]);
    } else {
      expect(output).toMatch(shapePattern(expected));
    }
  };

  const runInTourShell = async (block: CodeBlock) => {
    for (const snippet of snippets(block.code)) {
      const run = await shell.run(await fill(snippet.commands));
      expect({ status: run.status, errors: run.errors }, `${snippet.commands}\n-> ${run.output}`).toEqual({ status: 0, errors: '' });
      if (run.output.startsWith('{')) {
        const answer = JSON.parse(run.output) as Record<string, unknown>;
        expect(answer, `${snippet.commands} answered an error`).not.toHaveProperty('error');
        if (typeof answer.token === 'string') lastToken = answer.token;
      }
      if (snippet.expected) expectShown(run.output, snippet.expected);
      else expect(run.output === '' || /^[[{]/.test(run.output), run.output).toBe(true);
    }
  };

  const restartWithPrintedVariables = async (block: CodeBlock) => {
    const printed = /^WEBHOOK_ALLOW_PRIVATE_TARGETS=true WEBHOOK_CA_FILE=.+ npm start$/m.exec(receiver!.stderr)![0];
    const variables = variablesOf(block.code, cwd);
    // The README's line (relative to the clone's root) sets what the receiver printed.
    expect({ ...variables, WEBHOOK_CA_FILE: resolve(cwd, variables.WEBHOOK_CA_FILE!) }).toEqual(variablesOf(printed, cwd));
    expect(await service.stop()).toBe(0);
    await startService(variables);
  };

  const startReceiver = async () => {
    receiver = NodeProcess.start(LOCAL_WEBHOOKS, [
      '--port', String(receiverPort), '--dir', join(cwd, '.local-webhooks'), '--service-url', `http://localhost:${port}`,
    ], {});
    await receiver.waitFor((p) => p.stderr.includes('Events print below'));
  };

  /** The line the receiver prints for an event: the README shows its shape. */
  const expectReceiverPrinted = async (block: CodeBlock) => {
    const shown = parseShownJson(block.code);
    await receiver!.waitFor((p) => p.lines.length > 0);
    expect(receiver!.lines).toHaveLength(1);
    expect(differences(JSON.parse(receiver!.lines[0]!), shown), receiver!.lines[0]).toEqual([]);
  };

  for (const step of steps.filter((s) => s.blocks.length > 0)) {
    it(`${step.heading}: every block runs as written and answers as shown`, async () => {
      for (const block of step.blocks) {
        if (block.code === START_RECEIVER) await startReceiver();
        else if (block.code === RESTART_SERVICE) await restartWithPrintedVariables(block);
        else if (block.lang === 'text') await expectReceiverPrinted(block);
        else if (block.lang === 'sh') await runInTourShell(block);
        else throw new Error(`a block the test does not know: ${block.lang}\n${block.code}`);
      }
      if (step.heading === '### A webhook to the example receiver') {
        expect(receiver, 'the tour starts the receiver').toBeDefined();
        expect(service.stdout).not.toContain('first administrator');
      }
    });
  }
});
