import { ServiceProcess, freePort } from './process.js';

export interface ApiAnswer {
  status: number;
  headers: Headers;
  body: any;
}

/**
 * A service process (this build's CLI, or `cli`: an earlier release's) serving on a port of its
 * own, and its API as one signed-in admin sees it. Only what every release's API has: the paths,
 * bodies and headers of v0.1.0 onwards.
 */
export class ServiceApi {
  token = '';

  private constructor(readonly proc: ServiceProcess, readonly base: string) {}

  static async start(env: Record<string, string>, options: { cli?: string; admin?: { email: string; password: string }; readyWithinMs?: number } = {}): Promise<ServiceApi> {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const proc = ServiceProcess.start(['serve'], { ...env, PORT: String(port), HOST: '127.0.0.1' }, { cli: options.cli });
    await proc.waitUntilReady(`${base}/readyz`, options.readyWithinMs);
    const api = new ServiceApi(proc, base);
    if (options.admin) await api.login(options.admin.email, options.admin.password);
    return api;
  }

  async login(email: string, password: string): Promise<void> {
    const answer = await this.call('POST', '/api/v1/auth/login', { email, password });
    if (answer.status !== 200) throw new Error(`login of ${email} answered ${answer.status}: ${JSON.stringify(answer.body)}\n${this.proc.output}`);
    this.token = answer.body.token;
  }

  async call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}, token = this.token): Promise<ApiAnswer> {
    const response = await fetch(`${this.base}${path}`, {
      method,
      body: body === undefined ? undefined : JSON.stringify(body),
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Not JSON (a proxy's or a crash's page): kept as text for the failure's message.
    }
    return { status: response.status, headers: response.headers, body: parsed };
  }

  /** Like `call`, and fails unless the status is `expected`. */
  async expect(expected: number, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<any> {
    const answer = await this.call(method, path, body, headers);
    if (answer.status !== expected) throw new Error(`${method} ${path} answered ${answer.status}, not ${expected}: ${JSON.stringify(answer.body)}`);
    return answer.body;
  }

  /** A list's total over every page, from the `X-Total-Count` every release's lists send. */
  async total(path: string): Promise<number> {
    const answer = await this.call('GET', `${path}${path.includes('?') ? '&' : '?'}limit=1`);
    const total = answer.headers.get('x-total-count');
    if (answer.status !== 200 || total === null) throw new Error(`GET ${path} answered ${answer.status} without a total: ${JSON.stringify(answer.body)}`);
    return Number(total);
  }

  stop(signal?: NodeJS.Signals): Promise<number | null> {
    return this.proc.stop(signal);
  }
}
