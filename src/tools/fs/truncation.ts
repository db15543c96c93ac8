/**
 * Caps and truncation notices shared by every filesystem tool (house style: "Caps and truncation
 * notices come from one module; no tool invents its own wording for read more"). A notice tells the model
 * what it did not get and exactly how to get it.
 */

/** Characters of one line shown before it is cut (read_file and grep). */
export const MAX_LINE_CHARACTERS = 2000;

/** Marker appended to a cut line. */
export function lineCutMarker(totalCharacters: number): string {
  return ` … [line cut: ${totalCharacters} characters, showing the first ${MAX_LINE_CHARACTERS}]`;
}

/** A line no longer than {@link MAX_LINE_CHARACTERS}, with a marker when it was cut. */
export function cutLine(line: string): { text: string; cut: boolean } {
  if (line.length <= MAX_LINE_CHARACTERS) return { text: line, cut: false };
  return { text: line.slice(0, MAX_LINE_CHARACTERS) + lineCutMarker(line.length), cut: true };
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

export { formatBytes };

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

/** read_file's notice after a truncated window: what was shown and how to read on. */
export function readWindowNotice(input: ReadWindowNoticeInput): string {
  const parts: string[] = [];
  if (input.endLine < input.totalLines) {
    const reason = input.byteCapReached
      ? ` (the ${formatBytes(input.windowByteCap)} window cap was reached)`
      : '';
    parts.push(
      `Showing lines ${input.startLine}-${input.endLine} of ${input.totalLines}${reason}. To read on, call read_file with startLine ${input.endLine + 1} (and maxLines up to 5000).`,
    );
  }
  if (input.linesCut) {
    parts.push(
      `Lines longer than ${MAX_LINE_CHARACTERS} characters were cut; read such a file with view "hex" or "base64", or search it with grep.`,
    );
  }
  return `\n[truncated] ${parts.join(' ')}`;
}

/** glob's notice when the result list stopped at `maxResults`. */
export function globCapNotice(maxResults: number): string {
  return `Stopped at maxResults (${maxResults}) matches; narrow the pattern or the cwd to see the rest.`;
}

/**
 * The notice when the path policy kept candidates out of a glob or grep result, so an empty or short
 * result is not read as "nothing there".
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

/** grep's notice when the result list stopped at a cap. */
export function grepCapNotice(kind: 'maxResults' | 'maxMatchesPerFile', limit: number): string {
  return kind === 'maxResults'
    ? `Stopped at maxResults (${limit}) matches; narrow the pattern, the path or the glob to see the rest.`
    : `Some files have more than maxMatchesPerFile (${limit}) matching lines; only the first ${limit} of each are listed. Search a single file with a narrower pattern to see the rest.`;
}
