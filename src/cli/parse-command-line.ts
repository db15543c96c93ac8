/**
 * How every `mango` command reads its arguments: flags in the given options, positionals allowed, and
 * strict, so an unknown flag or a flag of the wrong kind is a usage mistake (`ERR_PARSE_ARGS_*`, which
 * `main.ts` prints with the usage help) rather than being ignored.
 */
import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';

export function parseCommandLine<const Options extends ParseArgsOptionsConfig>(
  args: string[],
  options: Options,
) {
  return parseArgs({ args, options, allowPositionals: true, strict: true });
}
