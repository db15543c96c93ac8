/**
 * The binary probe shared by read_file and grep: the probe window is shared, so a file grep will
 * search is a file read_file will open. A file is binary when a NUL byte
 * occurs in its first {@link BINARY_PROBE_BYTES} bytes.
 */

/** Probe window: the first 8 KiB. */
export const BINARY_PROBE_BYTES = 8192;

/** True when `bytes` (the start of a file, or all of it) holds a NUL byte inside the probe window. */
export function looksBinary(bytes: Uint8Array): boolean {
  const window = bytes.length > BINARY_PROBE_BYTES ? bytes.subarray(0, BINARY_PROBE_BYTES) : bytes;
  return window.indexOf(0) !== -1;
}
