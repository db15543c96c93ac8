/**
 * Test helper for the fixtures in a server's place (file-worker-server-process.ts starts them): reads
 * their commands from stdin, one a line, until stdin ends. Each command of `rounds` (`turn`, …) runs
 * one round of work and prints `{"done":…}` with its outcomes; `quit` cleans up and exits.
 */
export async function serveFixtureCommands(handlers: {
  rounds: Record<string, () => Promise<string[]>>;
  quit: () => Promise<void> | void;
}): Promise<void> {
  const input = Bun.stdin.stream().getReader();
  let text = '';
  for (;;) {
    const { done, value } = await input.read();
    if (done) return;
    text += new TextDecoder().decode(value);
    let newline = text.indexOf('\n');
    while (newline !== -1) {
      const line = text.slice(0, newline);
      text = text.slice(newline + 1);
      const round = Object.hasOwn(handlers.rounds, line) ? handlers.rounds[line] : undefined;
      if (round !== undefined) process.stdout.write(`${JSON.stringify({ done: await round() })}\n`);
      if (line === 'quit') {
        await handlers.quit();
        process.exit(0);
      }
      newline = text.indexOf('\n');
    }
  }
}
