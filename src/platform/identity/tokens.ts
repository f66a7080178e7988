/** Prefixes of the bearer secrets the service issues: they tell a session token from an API key at a glance. */
export const SESSION_TOKEN_PREFIX = 'ugt_';
export const API_KEY_PREFIX = 'ugk_';
