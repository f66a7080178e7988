import { readFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { createSecureContext, rootCertificates } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SyslogTransport, type SyslogTransportOptions } from '../../../src/modules/delivery/syslog/transport.js';
import { createTestCertificates } from '../../helpers/https-receiver.js';
import { RsyslogReceiver, rsyslogMissing } from '../../helpers/rsyslog.js';

const certificates = createTestCertificates();
const trusting = (caFile: string) => createSecureContext({ ca: [...rootCertificates, readFileSync(caFile, 'utf8')] });
const message = (n: number, text = 'CEF:0|UsageGovernance|ugs|0|test|t|1|msg=ok') =>
  `<165>1 2026-03-02T09:15:27.482Z test-host ugs 1 test.message.${n} - ${text}`;

// The transport alone, against a real rsyslog: what a send guarantees, how connections live and die.
describe.skipIf(rsyslogMissing !== null)('the syslog transport', () => {
  let receiver: RsyslogReceiver;
  const transports: SyslogTransport[] = [];
  beforeAll(async () => {
    receiver = await RsyslogReceiver.start(certificates);
  });
  afterAll(async () => {
    for (const transport of transports) await transport.close();
    await receiver.close();
  });

  function transport(options: Partial<SyslogTransportOptions> = {}): SyslogTransport {
    const made = new SyslogTransport({
      secureContext: trusting(certificates.caFile), allowPrivateTargets: true, timeoutMs: 3000, ...options,
    });
    transports.push(made);
    return made;
  }
  const target = () => ({ host: '127.0.0.1', port: receiver.port });
  const received = (from: number) => receiver.records().slice(from).map((record) => record.raw);

  it('writes several messages in one send, each in its own frame, byte for byte as given', async () => {
    const syslog = transport();
    const before = receiver.records().length;
    const batch = [message(1), message(2, 'CEF:0|UsageGovernance|ugs|0|test|ünï 🙂 \\| x|5|msg=a\\=b'), message(3)];
    expect(await syslog.send(target(), batch)).toMatchObject({ success: true, statusCode: 0, error: null });
    await receiver.waitFor((records) => records.length >= before + 3);
    expect(received(before)).toEqual(batch);
  });

  it('reuses its connection, closes it when idle, and opens another for the next send', async () => {
    const syslog = transport({ idleMs: 100 });
    const before = receiver.records().length;
    expect((await syslog.send(target(), [message(4)])).success).toBe(true);
    expect(syslog.openDestinations()).toEqual([`127.0.0.1:${receiver.port}`]);
    await expect.poll(() => syslog.openDestinations(), { timeout: 10_000 }).toEqual([]);
    expect((await syslog.send(target(), [message(5)])).success).toBe(true);
    await receiver.waitFor((records) => records.length >= before + 2);
    expect(received(before)).toEqual([message(4), message(5)]);
  });

  it('connects by host name with SNI and checks the certificate against it', async () => {
    const syslog = transport();
    const before = receiver.records().length;
    expect(await syslog.send({ host: 'localhost', port: receiver.port }, [message(6)])).toMatchObject({ success: true });
    await receiver.waitFor((records) => records.length >= before + 1);
  });

  it('refuses a receiver whose certificate no trusted CA issued, and writes nothing', async () => {
    const before = receiver.records().length;
    const other = createTestCertificates();
    for (const context of [trusting(other.caFile), undefined]) {
      const outcome = await transport({ secureContext: context }).send(target(), [message(7)]);
      expect(outcome).toMatchObject({ success: false, statusCode: 0 });
      expect(outcome.error).toMatch(/certificate|UNABLE_TO_VERIFY/i);
    }
    expect(received(before)).toEqual([]);
  });

  it('refuses a loopback receiver unless private targets are allowed, before connecting', async () => {
    const syslog = transport({ allowPrivateTargets: false });
    for (const host of ['127.0.0.1', 'localhost', '::1']) {
      const outcome = await syslog.send({ host, port: receiver.port }, [message(8)]);
      expect(outcome.error, host).toMatch(/refused to connect to .*is not public \(loopback\).*WEBHOOK_ALLOW_PRIVATE_TARGETS=true/);
    }
  });

  it('waits before connecting again after a failure: a send that cannot wait that long fails at once', async () => {
    const syslog = transport({ backoff: { baseMs: 60_000, maxMs: 60_000 } });
    await receiver.pause();
    try {
      const refused = await syslog.send(target(), [message(9)]);
      expect(refused.error).toMatch(/ECONNREFUSED/);
      const waiting = await syslog.send(target(), [message(9)]);
      expect(waiting.error).toMatch(/^not connecting again for \d+ ms after a failure: .*ECONNREFUSED/);
    } finally {
      await receiver.resume();
    }
    // The receiver is back, but the delay is not over: still no attempt.
    expect((await syslog.send(target(), [message(9)])).error).toMatch(/^not connecting again/);
  });

  it('fails a send that cannot connect within the timeout, and closes every connection when closed', async () => {
    // A listener that accepts and never answers the TLS handshake.
    const silent: Server = createServer((socket: Socket) => socket.on('error', () => {}));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    try {
      const syslog = transport({ timeoutMs: 300 });
      expect(await syslog.send({ host: '127.0.0.1', port }, [message(10)])).toMatchObject({
        success: false, error: 'not connected and written within 300 ms',
      });
      expect((await syslog.send(target(), [message(11)])).success).toBe(true);
      expect(syslog.openDestinations()).toEqual([`127.0.0.1:${receiver.port}`]);
      await syslog.close();
      expect(syslog.openDestinations()).toEqual([]);
      expect(await syslog.send(target(), [message(12)])).toMatchObject({ success: false, error: 'the syslog transport is closed' });
    } finally {
      silent.close();
    }
  });
});
