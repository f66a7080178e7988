// The generated interactions every bench sends (no dependency, so a child process can import it cheaply).
import { createHash, randomBytes } from 'node:crypto';

export const PLATFORMS = ['chatgpt', 'claude', 'copilot', 'mistral', 'gemini'];
const TYPES = ['EMAIL', 'CREDIT_CARD', 'IBAN', 'NIR', 'SIRET', 'API_KEY'];
const hash = () => createHash('sha256').update(randomBytes(16)).digest('hex');

/** The i-th generated interaction (a mix of platforms, scores and classifications). */
export const interaction = (i) => ({
  platform_id: PLATFORMS[i % PLATFORMS.length],
  content_hash: hash(),
  risk_score: (i % 100) / 100,
  source: i % 3 ? 'browser_extension' : 'proxy',
  direction: i % 4 ? 'outbound' : 'inbound',
  classifications: i % 5 ? [] : [{ type: TYPES[i % TYPES.length], value: 'x@y.test', score: 0.9, start: 0, end: 8 }],
  content_metadata: { model: 'gpt-4o', url: 'https://chat.example/c/1' },
});
