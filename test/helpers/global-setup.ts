import { execFileSync } from 'node:child_process';

/** Builds dist/ once per run, for the tests that start the service as a real process. */
export default function setup(): void {
  execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
}
