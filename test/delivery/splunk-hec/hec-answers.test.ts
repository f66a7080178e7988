import { describe, expect, it } from 'vitest';
import { readHecAnswer } from '../../../src/modules/delivery/splunk-hec/hec-transport.js';
import { toHecEvent } from '../../../src/modules/delivery/formats/splunk-hec.js';
import { splitBatches } from '../../../src/modules/delivery/transport/transport.js';

const TOKEN = '5f1c2a8e-3b7d-4e21-9c0f-6a1d2e3f4b5c';

describe('HEC answers', () => {
  it('is a success only for a 2xx carrying HEC\'s code 0', () => {
    expect(readHecAnswer(200, '{"text":"Success","code":0}', TOKEN)).toEqual({ success: true, error: null });
    expect(readHecAnswer(200, '{"text":"Success","code":0,"ackId":7}', TOKEN).success).toBe(true);
    // A web page or a proxy answering 200 is no HEC.
    expect(readHecAnswer(200, '<html>ok</html>', TOKEN)).toEqual({ success: false, error: "the receiver answered HTTP 200 without HEC's success code 0" });
    expect(readHecAnswer(200, '', TOKEN).success).toBe(false);
    expect(readHecAnswer(200, '{"text":"Data channel is missing","code":10}', TOKEN)).toEqual({
      success: false, error: "the receiver answered HTTP 200 without HEC's success code 0: Data channel is missing (HEC code 10)",
    });
  });

  it('records HEC\'s text and code, bounded, on one line, never the token', () => {
    expect(readHecAnswer(503, '{"text":"Server is busy","code":9}', TOKEN).error).toBe('the receiver answered HTTP 503: Server is busy (HEC code 9)');
    expect(readHecAnswer(502, 'Bad Gateway', TOKEN).error).toBe('the receiver answered HTTP 502');
    expect(readHecAnswer(301, '', TOKEN).error).toBe('the receiver answered HTTP 301 (redirects are not followed)');
    const token = TOKEN;
    const quoted = readHecAnswer(403, JSON.stringify({ text: `Invalid token ${token}\nrefused`, code: 4 }), token).error!;
    expect(quoted).toBe('the receiver answered HTTP 403: Invalid token [token] refused (HEC code 4)');
    const long = readHecAnswer(400, JSON.stringify({ text: 'x'.repeat(5000), code: 6 }), token).error!;
    expect(long.length).toBeLessThan(300);
  });
});

describe('HEC events and batches', () => {
  const envelope = '{"id":"evt_1","timestamp":"2026-03-02T09:20:00.123Z","event_type":"alert.created","tenant_id":"t","data":{"id":"a"}}';

  it('wraps the envelope\'s own bytes with its time in epoch seconds and its sourcetype', () => {
    const event = toHecEvent(envelope, 'ugs.example.com');
    expect(event).toBe(`{"time":1772443200.123,"host":"ugs.example.com","source":"ugs","sourcetype":"ugs:alert.created","event":${envelope}}`);
    expect(JSON.parse(event).event).toEqual(JSON.parse(envelope));
    expect(() => toHecEvent('{"id":"evt_1"}', 'h')).toThrow('not an event envelope');
  });

  it('cuts bodies into batches by count and by bytes, in order; a body too large alone goes alone', () => {
    const items = (sizes: number[]) => sizes.map((size, i) => ({ i, body: 'x'.repeat(size) }));
    const cut = (sizes: number[], maxEvents: number, maxBytes: number) =>
      splitBatches(items(sizes), { maxEvents, maxBytes }).map((batch) => batch.map((item) => item.i));
    expect(cut(Array(250).fill(10), 100, 1_000_000).map((batch) => batch.length)).toEqual([100, 100, 50]);
    expect(cut([40, 40, 40, 40], 100, 100)).toEqual([[0, 1], [2, 3]]);
    expect(cut([10, 500, 10], 100, 100)).toEqual([[0], [1], [2]]);
    expect(cut([], 100, 100)).toEqual([]);
  });
});
