import { createGovernanceClient, type GovernanceClient } from '@sdk/client.js';
import { ApiError } from '@sdk/errors.js';
import { getSession, setSession } from './session.js';

export { ApiError };

/**
 * The SDK's client with the tab's session token. A 401 on a signed-in call means the session
 * ended (expired, revoked, or the user was disabled): the session is dropped and the app goes
 * back to sign-in, remembering where the user was.
 */
const sessionFetch = async (request: Request): Promise<Response> => {
  const session = getSession();
  if (session && !request.headers.has('authorization')) request.headers.set('authorization', `Bearer ${session.token}`);
  const response = await globalThis.fetch(request);
  if (response.status === 401 && session && getSession() === session && !request.url.endsWith('/auth/login')) {
    setSession(null);
  }
  return response;
};

export const api: GovernanceClient = createGovernanceClient({
  baseUrl: globalThis.location.origin,
  fetch: sessionFetch,
  // Reads are retried on 503/429 by the SDK; a person sees the error after that.
  retry: { retries: 2 },
});

/** The sentence to show a person for a failed call: the API's own `error`, never a blank page. */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) {
    const details = error.details?.map((d) => `${d.path.replace(/^(body|query|params)\./, '')}: ${d.message}`);
    return details && details.length > 0 ? `${error.error} (${details.join('; ')})` : error.error;
  }
  if (error instanceof TypeError) return 'The service cannot be reached. Check your connection and try again.';
  return error instanceof Error ? error.message : 'Something went wrong.';
}

export function isApiError(error: unknown, code?: string): error is ApiError {
  return error instanceof ApiError && (code === undefined || error.code === code);
}
