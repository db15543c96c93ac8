/**
 * Every "read more" notice a builtin tool gives, worded once, each in the one cut-marker format (see
 * cut-marker.ts): what the caller did not get and exactly how to get it. No tool words its own.
 */
import { cutMarker } from './cut-marker.ts';
import { capCharacters } from './utf8-cap.ts';

/** Characters of one line shown before it is cut (read_file and grep). */
export const MAX_LINE_CHARACTERS = 2000;

/** A byte count as a reader says it: `256 KiB`, `1 MiB`, `2 GiB`, `1000 bytes`. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 ** 3 && bytes % 1024 ** 3 === 0) return `${bytes / 1024 ** 3} GiB`;
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/** Marker appended to a cut line. */
export function lineCutMarker(totalCharacters: number): string {
  return ` ${cutMarker(
    `line of ${totalCharacters} characters, first ${MAX_LINE_CHARACTERS} shown`,
    'read it whole with read_file view "hex" or "base64"',
  )}`;
}

/** A line no longer than {@link MAX_LINE_CHARACTERS}, with a marker when it was cut. */
export function cutLine(line: string): { text: string; cut: boolean } {
  const capped = capCharacters(line, MAX_LINE_CHARACTERS);
  return capped.cut ? { text: capped.text + lineCutMarker(line.length), cut: true } : capped;
}

export interface ReadWindowNoticeInput {
  startLine: number;
  endLine: number;
  totalLines: number;
  /** Some lines were cut at {@link MAX_LINE_CHARACTERS}. */
  linesCut: boolean;
  /** The window stopped early at the byte cap. */
  byteCapReached: boolean;
  windowByteCap: number;
}

/** read_file's notice after a truncated window: one marker per reason, each on its own line. */
export function readWindowNotice(input: ReadWindowNoticeInput): string {
  const markers: string[] = [];
  if (input.endLine < input.totalLines) {
    const reason = input.byteCapReached
      ? ` (the ${formatBytes(input.windowByteCap)} window cap was reached)`
      : '';
    markers.push(
      cutMarker(
        `showing lines ${input.startLine}-${input.endLine} of ${input.totalLines}${reason}`,
        `to read on, call read_file with startLine ${input.endLine + 1} (and maxLines up to 5000)`,
      ),
    );
  }
  if (input.linesCut) {
    markers.push(
      cutMarker(
        `lines longer than ${MAX_LINE_CHARACTERS} characters were cut`,
        'read such a file with view "hex" or "base64", or search it with grep',
      ),
    );
  }
  return markers.map((marker) => `\n${marker}`).join('');
}

/** glob's notice when the result list stopped at `maxResults`. */
export function globCapNotice(maxResults: number): string {
  return cutMarker(
    `stopped at maxResults (${maxResults}) matches`,
    'narrow the pattern or the cwd to see the rest',
  );
}

/** grep's notice when the result list stopped at a cap. */
export function grepCapNotice(kind: 'maxResults' | 'maxMatchesPerFile', limit: number): string {
  return kind === 'maxResults'
    ? cutMarker(
        `stopped at maxResults (${limit}) matches`,
        'narrow the pattern, the path or the glob to see the rest',
      )
    : cutMarker(
        `some files have more than maxMatchesPerFile (${limit}) matching lines and only the first ${limit} of each are listed`,
        'search a single file with a narrower pattern to see the rest',
      );
}

/** A shell tool's notice when stdout or stderr went past its per-stream cap. */
export function shellOutputCapNotice(maxOutputBytes: number): string {
  return cutMarker(
    `output past ${maxOutputBytes} bytes per stream (stdout, stderr) was dropped`,
    'to see the rest, filter it (head, tail, grep, wc) or redirect it to a file and read that with read_file',
  );
}

/** The turn loop's and MCP's marker when one serialized result went over its byte budget. */
export function resultBudgetMarker(originalBytes: number, keptBytes: number, budgetBytes: number): string {
  return `\n${cutMarker(
    `this tool result is ${originalBytes} bytes, over the ${budgetBytes}-byte limit for one result, and only the first ${keptBytes} bytes are shown above`,
    'ask for less: a narrower path, pattern or glob, a lower maxResults or maxLines, or a startLine to continue where this stops',
  )}`;
}

/** The first block of an external MCP result that the connection cut at its byte limit. */
export function mcpResultCutMarker(bytes: number, limitBytes: number): string {
  return cutMarker(
    `this result is ${bytes} bytes as the MCP server sent it, over the ${formatBytes(limitBytes)} read of one result, and only what fit is kept below`,
    "ask for less if the tool's arguments allow it (a narrower query, a smaller page)",
  );
}

/**
 * The notice when the path policy kept candidates out of a glob, grep or listing result, so an empty or
 * short result is not read as "nothing there". Not a cut: what it names cannot be read in this chat.
 */
export function policyOmissionNotice(count: number, what: 'paths' | 'files' | 'entries'): string {
  const noun =
    what === 'paths'
      ? `matching path${count === 1 ? ' was' : 's were'} left out`
      : what === 'entries'
        ? `entr${count === 1 ? 'y was' : 'ies were'} left out`
        : `file${count === 1 ? ' was' : 's were'} not searched`;
  return `${count} ${noun} because the path policy refuses ${count === 1 ? 'it' : 'them'} (outside what this chat can reach, outside allowedPaths, or under deniedPaths); ${count === 1 ? 'it' : 'they'} cannot be read in this chat.`;
}

/** Marker after an excerpt of a killed command's output quoted in its timeout error. */
export function excerptCutMarker(totalCharacters: number, shownCharacters: number): string {
  return ` ${cutMarker(
    `${totalCharacters} characters, first ${shownCharacters} shown`,
    'to see the rest, make the command finish sooner or redirect its output to a file and read that with read_file',
  )}`;
}
