import { execFileSync } from 'node:child_process';
import { BROWSER_SKIP_NOTICE, chromiumFound } from './browser.js';

/** Builds dist/ once per run, for the tests that start the service as a real process. */
export default function setup(): void {
  execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
  if (!chromiumFound) console.log(BROWSER_SKIP_NOTICE);
}
