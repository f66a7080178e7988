import { type BatchedFormat, type BatchTarget, USER_AGENT } from '../transport/transport.js';

/** HEC's own limits are larger; these keep one request small enough for any HEC and its proxies. */
export const HEC_MAX_EVENTS = 100;
export const HEC_MAX_BYTES = 1024 * 1024;
/** How much of HEC's `text` an attempt's error keeps. */
const HEC_TEXT_LENGTH = 200;

/**
 * Splunk's HTTP Event Collector: the HEC events of a batch, newline-separated, in one HTTPS POST
 * with the webhook's token as `Authorization: Splunk <token>`. No signature headers: HEC
 * authenticates the token and verifies none.
 */
export const splunkHec: BatchedFormat = {
  maxEvents: HEC_MAX_EVENTS,
  maxBytes: HEC_MAX_BYTES,
  open: (_config, https) => ({
    sendBatch: (target, bodies) => https.send(
      { url: target.url, headers: hecHeaders(target), body: bodies.join('\n') },
      (status, answer) => readHecAnswer(status, answer, target.auth_token),
    ),
    close: () => Promise.resolve(),
  }),
};

export function hecHeaders(target: BatchTarget): Record<string, string> {
  return {
    'user-agent': USER_AGENT,
    ...target.headers,
    ...(target.auth_token ? { authorization: `Splunk ${target.auth_token}` } : {}),
    'content-type': 'application/json',
  };
}

/**
 * HEC's answer: success is a 2xx whose body is HEC's `{"text":"Success","code":0}`; anything else
 * failed, with HEC's `text` and `code` in the error (busy 503 code 9, invalid data 400 code 6, a
 * token refused 401/403, ...). A 2xx without code 0 is no HEC: the URL is wrong.
 */
export function readHecAnswer(status: number, body: string, token: string): { success: boolean; error: string | null } {
  const answer = parseAnswer(body, token);
  const ok = status >= 200 && status < 300;
  if (ok && answer?.code === 0) return { success: true, error: null };
  const said = answer ? `: ${answer.text ?? ''}${answer.code === undefined ? '' : ` (HEC code ${answer.code})`}` : '';
  const what = ok ? `HTTP ${status} without HEC's success code 0` : `HTTP ${status}${status >= 300 && status < 400 ? ' (redirects are not followed)' : ''}`;
  return { success: false, error: `the receiver answered ${what}${said}` };
}

function parseAnswer(body: string, token: string): { text?: string; code?: number } | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { text, code } = parsed as { text?: unknown; code?: unknown };
  const answer: { text?: string; code?: number } = {};
  if (typeof text === 'string') answer.text = withoutToken(text, token).replace(/[\r\n\t]+/g, ' ').slice(0, HEC_TEXT_LENGTH);
  if (typeof code === 'number' && Number.isInteger(code)) answer.code = code;
  return answer.text === undefined && answer.code === undefined ? undefined : answer;
}

/** HEC's text may quote what it was sent: the token never reaches the history. */
function withoutToken(text: string, token: string): string {
  return token ? text.split(token).join('[token]') : text;
}
