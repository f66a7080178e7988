import type { components } from '@sdk/generated/openapi.js';

export type Me = components['schemas']['User'];

export interface Session {
  token: string;
  expiresAt: string;
  user: Me;
}

/**
 * The session lives in this tab only: in memory, and in sessionStorage so that a reload keeps it.
 * Never localStorage (shared by every tab, kept on disk with no end); see docs/console.md.
 */
const KEY = 'ugs.session';
let current: Session | null = read();
const listeners = new Set<() => void>();

function read(): Session | null {
  try {
    const stored = sessionStorage.getItem(KEY);
    const session = stored ? (JSON.parse(stored) as Session) : null;
    return session && Date.parse(session.expiresAt) > Date.now() ? session : null;
  } catch {
    return null;
  }
}

export function getSession(): Session | null {
  return current;
}

export function setSession(session: Session | null): void {
  current = session;
  if (session) sessionStorage.setItem(KEY, JSON.stringify(session));
  else sessionStorage.removeItem(KEY);
  for (const listener of listeners) listener();
}

export function onSessionChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
