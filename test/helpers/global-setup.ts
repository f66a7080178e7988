import { execFileSync } from 'node:child_process';
import { BROWSER_SKIP_NOTICE, chromiumFound } from './browser.js';

/**
 * Builds dist/ once per run, for the tests that start the service as a real process, the console
 * (dist/console, served by every app the tests build) and sdk/dist/, for the example receiver
 * the tests start.
 */
export default function setup(): void {
  execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
  execFileSync('npx', ['tsc', '-p', 'sdk/tsconfig.json'], { stdio: 'inherit' });
  execFileSync('npm', ['run', 'build:console', '--silent'], { stdio: 'inherit' });
  if (!chromiumFound) console.log(BROWSER_SKIP_NOTICE);
}
