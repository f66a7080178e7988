// The generated interactions every bench sends (no dependency, so a child process can import it cheaply).
import { createHash, randomBytes } from 'node:crypto';

export const PLATFORMS = ['chatgpt', 'claude', 'copilot', 'mistral', 'gemini'];
const TYPES = ['EMAIL', 'CREDIT_CARD', 'IBAN', 'NIR', 'SIRET', 'API_KEY'];
const hash = () => createHash('sha256').update(randomBytes(16)).digest('hex');

/**
 * The detected values of the i-th interaction: `mix` (the default: one in five carries one),
 * `none`, or `every` (an IBAN and an email in each, 1,000 distinct of each: types no bench policy matches,
 * so both variants raise the same alerts).
 */
function classificationsOf(i, values) {
  if (values === 'none') return [];
  if (values === 'every') {
    const iban = `FR76 3000 6000 0112 3456 7890 ${String(i % 1000).padStart(3, '0')}`;
    return [{ type: 'IBAN', value: iban, score: 0.95, start: 10, end: 43 }, { type: 'EMAIL', value: `user${i % 1000}@example.com`, score: 0.9, start: 50, end: 70 }];
  }
  return i % 5 ? [] : [{ type: TYPES[i % TYPES.length], value: 'x@y.test', score: 0.9, start: 0, end: 8 }];
}

/** The i-th generated interaction (a mix of platforms, scores and classifications). */
export const interaction = (i, values = 'mix') => ({
  platform_id: PLATFORMS[i % PLATFORMS.length],
  content_hash: hash(),
  risk_score: (i % 100) / 100,
  source: i % 3 ? 'browser_extension' : 'proxy',
  direction: i % 4 ? 'outbound' : 'inbound',
  classifications: classificationsOf(i, values),
  content_metadata: { model: 'gpt-4o', url: 'https://chat.example/c/1' },
});
