/**
 * The structured log of the access refusals an operator must see: a tool call that named a path of the
 * server (the protected set). Each refusal is one JSON object on one line of stderr, so a log collector
 * can alert on it without parsing prose. Tests swap the writer to capture the lines.
 */

export interface ProtectedPathRefusal {
  userId: string;
  chatId: string | undefined;
  /** The path as the tool call named it. */
  path: string;
  /** Where it really lands (symlinks resolved). */
  real: string;
  /** The protected path covering `real`. */
  protectedPath: string;
  /** Epoch milliseconds of the refusal (the call's clock). */
  at: number;
}

export type AccessLogWriter = (line: string) => void;

const stderrWriter: AccessLogWriter = (line) => {
  process.stderr.write(`${line}\n`);
};

let writer: AccessLogWriter = stderrWriter;

/** Routes the log lines to `next` (a test capture) until the returned function restores the previous. */
export function setAccessLogWriter(next: AccessLogWriter): () => void {
  const previous = writer;
  writer = next;
  return () => {
    writer = previous;
  };
}

export function logProtectedPathRefusal(refusal: ProtectedPathRefusal): void {
  writer(
    JSON.stringify({
      time: new Date(refusal.at).toISOString(),
      level: 'warn',
      event: 'tool_access_refused',
      reason: 'protected_path',
      userId: refusal.userId,
      chatId: refusal.chatId ?? null,
      path: refusal.path,
      real: refusal.real,
      protectedPath: refusal.protectedPath,
    }),
  );
}
