// Child processes and temporary resources of a bench run, released even when the run fails or is interrupted.
// Normal paths release them in their own `finally`; this is the safety net for errors and Ctrl-C.
const children = new Set();
const tasks = new Set();
let installed = false;

function install() {
  if (installed) return;
  installed = true;
  // Last resort (uncaught error, process.exit): only synchronous work is possible here.
  process.on('exit', () => {
    for (const child of children) child.kill('SIGKILL');
    for (const task of tasks) if (task.sync) runQuietly(task.fn);
  });
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, async () => {
      process.stderr.write(`\nbench: ${signal}, cleaning up\n`);
      for (const child of children) child.kill('SIGKILL');
      const timer = setTimeout(() => process.exit(130), 10_000);
      for (const task of [...tasks].reverse()) await runQuietly(task.fn);
      clearTimeout(timer);
      process.exit(130);
    });
  }
}

async function runQuietly(fn) {
  try {
    await fn();
  } catch {
    // best effort
  }
}

/** Kills `child` if the bench exits or is interrupted while it runs. */
export function trackChild(child) {
  install();
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/**
 * Runs `fn` if the bench is interrupted (and, when `sync`, at any exit) unless the returned
 * release function ran first; `release()` runs `fn` now and forgets it.
 */
export function onCleanup(fn, { sync = false } = {}) {
  install();
  const task = { fn, sync };
  tasks.add(task);
  return async () => {
    if (!tasks.delete(task)) return;
    await fn();
  };
}
