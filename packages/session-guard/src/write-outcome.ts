/** What ioredis says of a command it never wrote to a connection (it keeps no offline queue). */
const NEVER_SENT = ["Stream isn't writeable", "Cluster isn't ready"];

/**
 * Whether a failed write may still have been carried out. Redis's own error
 * answers (`ReplyError`: the command was refused, or ran and said so) and
 * commands never sent wrote nothing; any other failure of a command that was
 * sent (its connection lost, a timeout) leaves its outcome unknown.
 */
export function mayHaveWritten(err: unknown): boolean {
  if (!(err instanceof Error)) return true;
  if (err.name === 'ReplyError') return false;
  return !NEVER_SENT.some((words) => err.message.startsWith(words));
}
