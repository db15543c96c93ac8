/**
 * Byte counts in messages and from operators: one short binary figure, rounded down so a full disk
 * never reads as more than its limit; sizes read as bytes or with a binary unit, nothing guessed.
 */
import { describe, expect, test } from 'bun:test';
import { formatBytes, parseByteSize } from '../../src/config/byte-size.ts';
import { diskQuotaProblem } from '../../src/config/disk-quota-size.ts';

describe('formatBytes', () => {
  test.each([
    [0, '0 bytes'],
    [1, '1 byte'],
    [1023, '1023 bytes'],
    [1024, '1 KiB'],
    [65_536, '64 KiB'],
    [5 * 1024 * 1024 - 1, '4.9 MiB'],
    [5 * 1024 * 1024, '5 MiB'],
    [1.5 * 1024 * 1024, '1.5 MiB'],
    [12.9 * 1024 * 1024, '12 MiB'],
    [5 * 1024 ** 3, '5 GiB'],
    [16 * 1024 ** 4, '16 TiB'],
  ])('%d bytes read %s', (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text);
  });
});

describe('parseByteSize', () => {
  test.each([
    ['5368709120', 5_368_709_120],
    ['5GiB', 5_368_709_120],
    ['5 gib', 5_368_709_120],
    ['512MiB', 536_870_912],
    ['64KiB', 65_536],
    ['2TiB', 2 * 1024 ** 4],
    ['7b', 7],
  ])('%s is %d bytes', (text, bytes) => {
    expect(parseByteSize(text)).toBe(bytes);
  });

  test.each(['5GB', '5 MB', '1.5GiB', '-1', 'GiB', '', 'five', '99999999999PiB'])('%s is refused', (text) => {
    expect(parseByteSize(text)).toBeUndefined();
  });
});

describe('diskQuotaProblem', () => {
  test('whole MiB from 4 MiB to 16 TiB', () => {
    expect(diskQuotaProblem(4 * 1024 * 1024)).toBeUndefined();
    expect(diskQuotaProblem(16 * 1024 ** 4)).toBeUndefined();
    expect(diskQuotaProblem(3 * 1024 * 1024)).toBe('a disk quota is at least 4 MiB (4194304 bytes)');
    expect(diskQuotaProblem(16 * 1024 ** 4 + 1024 * 1024)).toBe(
      'a disk quota is at most 16 TiB (17592186044416 bytes)',
    );
    expect(diskQuotaProblem(5_000_000)).toBe(
      'a disk quota is a whole number of MiB (a multiple of 1048576 bytes)',
    );
  });
});
