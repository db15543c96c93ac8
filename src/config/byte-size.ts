/**
 * Byte counts as people read and write them: `formatBytes` gives one short figure in binary units
 * ("4.9 MiB", "5 GiB", "812 bytes"), the same in every message, so a used figure and a limit compare at
 * a glance; `parseByteSize` reads a count an operator types, a whole number of bytes or one with a
 * binary unit ("5GiB", "512 MiB"), and nothing else: "5GB" is refused rather than guessed at, since
 * decimal and binary units differ by 7 % at that size.
 */

const UNITS = ['KiB', 'MiB', 'GiB', 'TiB', 'PiB'] as const;

/** "4.9 MiB": one decimal below 10 units, none above; whole units without a decimal. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`;
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  // Rounded down, so a full disk never reads as more than its limit ("5 MiB of 5 MiB" when 4.99 is used).
  const shown = value < 10 ? Math.floor(value * 10) / 10 : Math.floor(value);
  return `${Number.isInteger(shown) ? shown.toFixed(0) : shown.toFixed(1)} ${UNITS[unit]}`;
}

const MULTIPLIERS: Readonly<Record<string, number>> = {
  '': 1,
  b: 1,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
  tib: 1024 ** 4,
};

/** The bytes `text` names ("5368709120", "5GiB", "512 MiB"), or undefined when it names none. */
export function parseByteSize(text: string): number | undefined {
  const match = /^(\d+)\s*([A-Za-z]*)$/.exec(text.trim());
  if (match === null) return undefined;
  const multiplier = MULTIPLIERS[match[2]!.toLowerCase()];
  if (multiplier === undefined) return undefined;
  const bytes = Number(match[1]) * multiplier;
  return Number.isSafeInteger(bytes) ? bytes : undefined;
}
