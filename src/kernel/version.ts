import { readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

/** The service's release version, `vMAJOR.MINOR.PATCH`. */
export const SERVICE_VERSION = `v${pkg.version}`;

export function majorOf(version: string): number {
  const match = /^v?(\d+)\.(\d+)\.(\d+)$/.exec(version);
  if (!match) throw new Error(`Not a release version: ${version}`);
  return Number(match[1]);
}
