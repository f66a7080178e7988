import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGovernanceClient, WEBHOOK_EVENT_TYPES } from '../../sdk/src/index.js';
import { Harness } from '../helpers/harness.js';
import { listen } from '../helpers/listening.js';
import { NodeProcess } from '../helpers/node-process.js';
import { freePort } from '../helpers/process.js';
import { STORES } from '../helpers/stores.js';

const LOCAL = join(import.meta.dirname, '../../examples/receiver/local.mjs');

/** Runs one printed shell line with bash, as a user pasting it would (without blocking the service in this process). */
const shell = async (line: string, env: Record<string, string> = {}) =>
  (await promisify(execFile)('bash', ['-c', line], { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env } })).stdout;

describe.each(STORES)('npm run webhooks:local: its printed commands give working local webhooks [%s]', (kind) => {
  const dir = mkdtempSync(join(tmpdir(), 'ugs-local-webhooks-'));
  let local: NodeProcess;
  let h: Harness | undefined;
  let servicePort: number;
  beforeAll(async () => {
    servicePort = await freePort();
    local = NodeProcess.start(LOCAL, ['--port', String(await freePort()), '--dir', dir, '--service-url', `http://127.0.0.1:${servicePort}`], {});
    await local.waitFor((p) => p.stderr.includes('Events print below'));
  });
  afterAll(async () => {
    await local?.stop();
    await h?.close();
  });

  it('starts the receiver with a local CA, prints the service\'s variables and the curl that registers the webhook and saves its secret', async () => {
    const startLine = /^WEBHOOK_ALLOW_PRIVATE_TARGETS=true WEBHOOK_CA_FILE=.+ npm start$/m.exec(local.stderr)?.[0];
    expect(startLine).toBeDefined();
    // The variables exactly as the printed line sets them.
    const env = Object.fromEntries((await shell(startLine!.replace(/ npm start$/, ' env'))).trim().split('\n')
      .map((line) => line.split(/=(.*)/s).slice(0, 2) as [string, string]).filter(([name]) => name.startsWith('WEBHOOK_')));
    expect(env).toEqual({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_CA_FILE: join(dir, 'ca.pem') });
    expect(readFileSync(env.WEBHOOK_CA_FILE!, 'utf8')).toContain('BEGIN CERTIFICATE');

    h = await Harness.start(kind, { workers: true, env: { ...env, WEBHOOK_RETRY_DELAYS_MS: '0,50,100,150,200' } });
    await listen(h.app, servicePort);
    const t = await h.tenant();

    const curlLine = /^curl .+$/m.exec(local.stderr)?.[0];
    expect(curlLine).toBeDefined();
    const registered = JSON.parse(await shell(curlLine!, { TOKEN: t.adminToken })) as { id: string; signing_secret: string; events: string[] };
    expect(registered.events).toEqual(WEBHOOK_EVENT_TYPES.filter((type) => type !== 'audit.entry'));
    expect(existsSync(join(dir, 'webhook.json'))).toBe(true);

    const client = createGovernanceClient({ baseUrl: `http://127.0.0.1:${servicePort}`, token: t.adminToken });
    const policy = await client.POST('/api/v1/policies', { body: { name: 'local', action: 'log' } });
    await local.waitFor((p) => p.stdout.includes(policy.id));
    const event = JSON.parse(local.lines.find((line) => line.includes(policy.id))!);
    expect(event).toMatchObject({ event_type: 'policy.created', tenant_id: t.tenantId, data: { id: policy.id } });
  });

  it('reuses its certificates on the next start, so the service\'s CA file stays valid', async () => {
    const again = NodeProcess.start(LOCAL, ['--port', String(await freePort()), '--dir', dir], {});
    try {
      await again.waitFor((p) => p.stderr.includes('Events print below'));
      expect(again.stderr).not.toContain('just made');
      expect(again.stderr).toContain(`certificates in ${dir})`);
    } finally {
      await again.stop();
    }
  });
});
