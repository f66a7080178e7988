import { readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

/** The service's release version, `vMAJOR.MINOR.PATCH`. */
export const SERVICE_VERSION = `v${pkg.version}`;

export function majorOf(version: string): number {
  return partsOf(version)[0]!;
}

/** Negative, zero or positive as `a` is an earlier, the same or a later release than `b`. */
export function compareVersions(a: string, b: string): number {
  const [left, right] = [partsOf(a), partsOf(b)];
  for (let i = 0; i < 3; i++) if (left[i] !== right[i]) return left[i]! - right[i]!;
  return 0;
}

function partsOf(version: string): number[] {
  const match = /^v?(\d+)\.(\d+)\.(\d+)$/.exec(version);
  if (!match) throw new Error(`Not a release version: ${version}`);
  return match.slice(1).map(Number);
}
