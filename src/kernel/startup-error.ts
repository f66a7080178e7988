/** A start that cannot go on (port taken, database unreachable): its message is the one line printed. */
export class StartupError extends Error {}
