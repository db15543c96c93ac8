/**
 * The tenant's side of the swap fuzzer (see swap-fuzzer.ts), run as a child process: it exchanges each
 * given entry with its prepared `<name>.swap-link` sibling (a symlink to the outside sentinel) by
 * `renameat2(RENAME_EXCHANGE)`, over and over, so the name alternates between the real entry and a link
 * out, thousands of times a second. Each entry's parent is held by descriptor from the start: a parent that
 * is itself swapped out at that moment still has its own entries exchanged, never the sentinel's.
 *
 * Protocol: argv[2] is the JSON of {@link ExchangerRequest}. It prints `ready` after its first burst, and on a line on stdin (or stdin closing) it stops, exchanges back every entry left
 * swapped, prints the JSON of {@link ExchangerReport} and exits 0.
 */
import { basename, dirname } from 'node:path';
import { HeldDirectory } from '../../src/descriptors/held-directory.ts';
import { RENAME_EXCHANGE, renameat2 } from '../../src/descriptors/linux-file-calls.ts';

export interface ExchangerRequest {
  /** Absolute real paths of the entries to exchange (each with a `.swap-link` sibling). */
  entries: string[];
  /**
   * Exchanges (each of a random entry) per burst, or one more at random; the exchanger yields ~1 ms
   * between bursts.
   */
  burst: number;
}

export interface ExchangerReport {
  /** Exchanges made in all. */
  swaps: number;
}

export const SWAP_LINK_SUFFIX = '.swap-link';

if (import.meta.main) {
  const request = JSON.parse(process.argv[2]!) as ExchangerRequest;
  // Parents are opened before anything is exchanged, so each is the real directory.
  const targets = request.entries.map((entry) => ({
    parent: HeldDirectory.open(dirname(entry)),
    name: basename(entry),
    swapped: false,
  }));
  let stopping = false;
  const stop = () => {
    stopping = true;
  };
  process.stdin.on('data', stop);
  process.stdin.on('end', stop);
  const exchange = (target: (typeof targets)[number]) => {
    renameat2(
      target.parent.fd,
      target.name,
      target.parent.fd,
      `${target.name}${SWAP_LINK_SUFFIX}`,
      RENAME_EXCHANGE,
    );
    target.swapped = !target.swapped;
  };
  let swaps = 0;
  let announced = false;
  while (!stopping) {
    // A random entry each time: across bursts any combination of swapped components is left standing
    // while the server's operation runs, not only the all-real state a full round would end in. One step
    // more on every other burst, at random: with a single entry an even burst would always leave it
    // real between bursts.
    const steps = request.burst + (Math.random() < 0.5 ? 1 : 0);
    for (let step = 0; step < steps; step += 1) {
      exchange(targets[Math.floor(Math.random() * targets.length)]!);
      swaps += 1;
    }
    if (!announced) {
      announced = true;
      process.stdout.write('ready\n');
    }
    await Bun.sleep(1); // fixture: the attacker's pause between bursts
  }
  for (const target of targets) {
    if (target.swapped) exchange(target);
    target.parent.close();
  }
  process.stdout.write(`${JSON.stringify({ swaps } satisfies ExchangerReport)}\n`);
  process.exit(0);
}
