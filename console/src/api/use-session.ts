import { useSyncExternalStore } from 'react';
import { getSession, onSessionChange, type Session } from './session.js';

export function useSession(): Session | null {
  return useSyncExternalStore(onSessionChange, getSession);
}

/** The signed-in user's role decides which write controls a page shows (the API refuses them anyway). */
export function useIsAdmin(): boolean {
  return useSession()?.user.role === 'admin';
}
