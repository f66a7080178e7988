import { describe, expect, it } from 'vitest';
import { CATALOG } from '../../src/modules/platforms/platforms.catalog.js';
import { PLATFORM_ID_PATTERN, PLATFORM_CATEGORIES, RISK_TIERS } from '../../src/kernel/vocabulary.js';

const FIELDS = ['id', 'name', 'vendor', 'category', 'domains', 'risk_tier', 'trains_on_inputs', 'data_regions', 'sources'];
const MIN_ENTRIES = 150;
const MIN_PER_CATEGORY = 10;
// A host name: lowercase labels of letters, digits and inner hyphens, at least two of them.
const HOST = /^(?=.{4,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const REGION = /^([A-Z]{2})$/;

describe('the platform catalog (catalog.json)', () => {
  it(`has at least ${MIN_ENTRIES} entries, and at least ${MIN_PER_CATEGORY} in each category`, () => {
    expect(CATALOG.length).toBeGreaterThanOrEqual(MIN_ENTRIES);
    for (const category of PLATFORM_CATEGORIES) {
      expect(CATALOG.filter((entry) => entry.category === category).length, category).toBeGreaterThanOrEqual(MIN_PER_CATEGORY);
    }
  });

  it.each(CATALOG.map((entry) => [entry.id, entry] as const))('%s: every field, of its type and enum', (_id, entry) => {
    expect(Object.keys(entry).sort()).toEqual([...FIELDS].sort());
    expect(entry.id).toMatch(PLATFORM_ID_PATTERN);
    expect(entry.id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/); // the id rule: lowercase words joined by hyphens
    expect(entry.name.trim()).not.toBe('');
    expect(entry.vendor.trim()).not.toBe('');
    expect(PLATFORM_CATEGORIES).toContain(entry.category);
    expect(RISK_TIERS).toContain(entry.risk_tier);
    expect([true, false, null]).toContain(entry.trains_on_inputs);
    expect(entry.domains.length).toBeGreaterThan(0);
    for (const domain of entry.domains) expect(domain).toMatch(HOST);
    for (const region of entry.data_regions) expect(region === 'EU' || REGION.test(region), region).toBe(true);
    expect(entry.sources.length).toBeGreaterThan(0);
    for (const source of entry.sources) expect(new URL(source).protocol).toBe('https:');
    // A vendor that trains on what users send by default is never low risk.
    if (entry.trains_on_inputs === true) expect(entry.risk_tier).not.toBe('low');
  });

  it('has unique ids and unique domains', () => {
    const ids = CATALOG.map((entry) => entry.id);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    const domains = CATALOG.flatMap((entry) => entry.domains);
    expect(domains.filter((domain, i) => domains.indexOf(domain) !== i)).toEqual([]);
  });

  it('keeps the ids clients already send', () => {
    const ids = new Set(CATALOG.map((entry) => entry.id));
    for (const id of ['openai', 'anthropic', 'mistral', 'perplexity', 'deepseek', 'google-gemini']) expect(ids.has(id), id).toBe(true);
  });
});
