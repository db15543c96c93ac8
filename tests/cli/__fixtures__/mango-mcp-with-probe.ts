// `mango mcp` as its entry runs it (runCli, every builtin registered), with two more tools through
// which a test controls the server's side of a call and hears what reached it, as lines on stderr:
// `hold` says "probe: request <id>" when it starts, "probe: cancel <classification>" when its signal
// fires, and runs on past the cancel until `release` is called, then says "probe: ended <id>".
import { runCli } from '../../../src/cli/main.ts';
import { registerTool } from '../../../src/tools/registry.ts';
import type { ToolContext } from '../../../src/tools/types.ts';
import { makeTool } from '../../helpers/fake-tools.ts';

const say = (line: string) => process.stderr.write(`probe: ${line}\n`);
let release = Promise.withResolvers<void>();

registerTool(
  makeTool({
    name: 'hold',
    execute: async (args, context: ToolContext) => {
      const id = String((args as { value?: string }).value);
      say(`request ${id}`);
      context.signal.addEventListener(
        'abort',
        () => say(`cancel ${(context.signal.reason as { classification?: string }).classification}`),
        { once: true },
      );
      // A server slow to stop: the cancel does not end this call, only `release` does.
      await release.promise;
      say(`ended ${id}`);
      return { held: id };
    },
  }),
);
registerTool(
  makeTool({
    name: 'release',
    execute: async () => {
      release.resolve();
      release = Promise.withResolvers<void>();
      return { released: true };
    },
  }),
);

process.exitCode = await runCli(['mcp', ...process.argv.slice(2)], {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  cwd: process.cwd(),
  env: process.env,
});
