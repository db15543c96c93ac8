// `mango serve` with the test tools (`tunable`, `locked`) registered next to the builtins, so the
// process tests can write settings of every parameter type through a real server process.
import { runCli } from '../../../src/cli/main.ts';
import { defaultToolRegistry } from '../../../src/tools/registry.ts';
import { createTestRegistry } from '../../helpers/test-app.ts';

for (const tool of createTestRegistry().list()) defaultToolRegistry.register(tool);
process.exitCode = await runCli(['serve'], {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  cwd: process.cwd(),
  env: process.env,
});
