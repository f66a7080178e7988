import createClient, { type Client, type FetchResponse, type MaybeOptionalInit, type Middleware } from 'openapi-fetch';
import type { HttpMethod, PathsWithMethod, RequiredKeysOf } from 'openapi-typescript-helpers';
import { ApiError } from './errors.js';
import type { paths } from './generated/openapi.js';
import { IDEMPOTENT_OPERATIONS } from './generated/operations.js';
import { paginate } from './pagination.js';
import { retryingFetch, type RetryOptions } from './retry.js';

export interface GovernanceClientOptions {
  /** The service's origin, e.g. `https://governance.example.com` (paths start with `/api/v1`). */
  baseUrl: string;
  /** A session token (`ugt_…`, from POST /api/v1/auth/login). */
  token?: string;
  /** An API key (`ugk_…`). */
  apiKey?: string;
  /** Retries of 429, 503 and network errors; `false` turns them off. */
  retry?: RetryOptions | false;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
  /** The fetch to use (default: the global one). */
  fetch?: (request: Request) => Promise<Response>;
}

type InitParam<Init> = RequiredKeysOf<Init> extends never ? [(Init & { [key: string]: unknown })?] : [Init & { [key: string]: unknown }];

/** What a successful call of `path` with `method` returns (undefined for 204). */
export type SuccessData<P extends keyof paths, M extends HttpMethod, I = unknown> =
  paths[P] extends Record<M, infer O extends Record<string | number, unknown>>
    ? Extract<FetchResponse<O, I, `${string}/${string}`>, { error?: never }>['data']
    : never;

/** Calls an operation by path; resolves with the answer's body, rejects with ApiError on a non-2xx answer. */
export type Call<M extends HttpMethod> = <P extends PathsWithMethod<paths, M>, I extends MaybeOptionalInit<paths[P], M>>(
  path: P,
  ...init: InitParam<I>
) => Promise<SuccessData<P, M, I>>;

/** Paths of GET operations that answer a list: `{<items>: [...], total, next_cursor?}` or an array. */
export type ListPath = {
  [P in PathsWithMethod<paths, 'get'>]: SuccessData<P, 'get'> extends { total: number } | readonly unknown[] ? P : never;
}[PathsWithMethod<paths, 'get'>];

/** The item type of a list's body. */
export type ItemOf<Body> = Body extends readonly (infer I)[]
  ? I
  : { [K in keyof Body]: Body[K] extends readonly (infer I)[] ? I : never }[keyof Body];

export type ListCall<Result extends 'page' | 'item'> = <P extends ListPath, I extends MaybeOptionalInit<paths[P], 'get'>>(
  path: P,
  ...init: InitParam<I>
) => AsyncGenerator<Result extends 'page' ? SuccessData<P, 'get', I> : ItemOf<SuccessData<P, 'get', I>>, void, undefined>;

export interface GovernanceClient {
  GET: Call<'get'>;
  POST: Call<'post'>;
  PUT: Call<'put'>;
  PATCH: Call<'patch'>;
  DELETE: Call<'delete'>;
  /** Every page of a list, following `next_cursor` (or page numbers when a list has no cursor). */
  pages: ListCall<'page'>;
  /** Every item of a list, page after page. */
  items: ListCall<'item'>;
  /** The underlying openapi-fetch client: `{data, error, response}` instead of exceptions. */
  raw: Client<paths>;
}

/** Adds an Idempotency-Key, made once per call (so every retry carries it), to the operations that accept one. */
const idempotencyKeys: Middleware = {
  onRequest({ request, schemaPath }) {
    if (IDEMPOTENT_OPERATIONS.has(`${request.method} ${schemaPath}`) && !request.headers.has('idempotency-key')) {
      request.headers.set('idempotency-key', globalThis.crypto.randomUUID());
    }
    return request;
  },
};

export function createGovernanceClient(options: GovernanceClientOptions): GovernanceClient {
  if (options.token && options.apiKey) throw new TypeError('createGovernanceClient: pass a token or an API key, not both');
  const credential = options.token ?? options.apiKey;
  const fetchOnce = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const raw = createClient<paths>({
    baseUrl: options.baseUrl,
    fetch: options.retry === false ? fetchOnce : retryingFetch(fetchOnce, options.retry),
    headers: { ...options.headers, ...(credential ? { authorization: `Bearer ${credential}` } : {}) },
  });
  raw.use(idempotencyKeys);

  // The types are GovernanceClient's; the implementations below only pass calls through.
  const call = (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE') =>
    (async (path: string, init?: object) => {
      const send = raw[method] as (path: string, init?: object) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
      const { data, error, response } = await send(path, init);
      if (!response.ok) throw ApiError.from(response, error);
      return data;
    }) as never;
  const get = (path: string, init?: object) => raw.GET(path as never, init as never) as Promise<{ data?: unknown; error?: unknown; response: Response }>;

  return {
    GET: call('GET'),
    POST: call('POST'),
    PUT: call('PUT'),
    PATCH: call('PATCH'),
    DELETE: call('DELETE'),
    pages: ((path: string, init?: object) => paginate(get, path, init, 'page')) as never,
    items: ((path: string, init?: object) => paginate(get, path, init, 'item')) as never,
    raw,
  };
}
