/**
 * The structured result views whose shapes the tools declare in the contract
 * (`src/contracts/tool-result-view.ts`): `directory_listing` as a table, `path_list` as a list,
 * `file_edit` as what the edit did (the diff itself is drawn from the call's arguments,
 * `edit-diff-view.ts`) and `images` as a caption of what was made and what failed (the images
 * themselves are shown once, above, by the card). Each reader checks the shape at run time, since a
 * result is untrusted, and answers undefined when it does not fit, so the caller falls back to the
 * generic view. Every value is inserted as text.
 */
import type {
  DirectoryEntryType,
  DirectoryListingResult,
  FileEditResult,
  PathListResult,
} from '../src/contracts/tool-result-view.ts';
import { h } from './dom.ts';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const plural = (count: number, word: string, words = `${word}s`) => `${count} ${count === 1 ? word : words}`;

const ENTRY_TYPES: Record<DirectoryEntryType, string> = {
  directory: 'folder',
  file: 'file',
  symlink: 'link',
  other: 'other',
};

function isEntryType(value: unknown): value is DirectoryEntryType {
  return typeof value === 'string' && Object.hasOwn(ENTRY_TYPES, value);
}

export function readDirectoryListing(result: unknown): DirectoryListingResult | undefined {
  if (!isRecord(result) || typeof result.path !== 'string' || !Array.isArray(result.entries))
    return undefined;
  const entries: DirectoryListingResult['entries'] = [];
  for (const entry of result.entries) {
    if (!isRecord(entry) || typeof entry.name !== 'string' || !isEntryType(entry.type)) return undefined;
    entries.push({ name: entry.name, type: entry.type });
  }
  return {
    path: result.path,
    entries,
    ...(typeof result.notice === 'string' ? { notice: result.notice } : {}),
  };
}

/** The listing's caption: "src — 3 entries: 1 folder, 2 files". */
export function directoryCaption(listing: DirectoryListingResult): string {
  const counts = new Map<DirectoryEntryType, number>();
  for (const entry of listing.entries) counts.set(entry.type, (counts.get(entry.type) ?? 0) + 1);
  const parts = (['directory', 'file', 'symlink', 'other'] as const)
    .filter((type) => counts.has(type))
    .map((type) => {
      const count = counts.get(type)!;
      return type === 'directory' ? plural(count, 'folder') : plural(count, ENTRY_TYPES[type]);
    });
  if (listing.entries.length === 0) return `${listing.path} — empty`;
  return `${listing.path} — ${plural(listing.entries.length, 'entry', 'entries')}: ${parts.join(', ')}`;
}

export function renderDirectoryListing(listing: DirectoryListingResult): HTMLElement {
  return h(
    'div',
    { class: 'result-directory' },
    h('p', { class: 'result-caption' }, directoryCaption(listing)),
    listing.notice ? h('p', { class: 'result-caption result-notice' }, listing.notice) : null,
    listing.entries.length > 0
      ? h(
          'div',
          { class: 'result-table-frame' },
          h(
            'table',
            { class: 'result-table' },
            h('caption', { class: 'visually-hidden' }, `Entries of ${listing.path}`),
            h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Name'), h('th', { scope: 'col' }, 'Type'))),
            h(
              'tbody',
              {},
              listing.entries.map((entry) =>
                h(
                  'tr',
                  { class: `entry-${entry.type}` },
                  h('td', {}, h('code', {}, entry.type === 'directory' ? `${entry.name}/` : entry.name)),
                  h('td', {}, ENTRY_TYPES[entry.type]),
                ),
              ),
            ),
          ),
        )
      : null,
  );
}

export function readPathList(result: unknown): PathListResult | undefined {
  if (
    !isRecord(result) ||
    typeof result.pattern !== 'string' ||
    typeof result.cwd !== 'string' ||
    !Array.isArray(result.matches) ||
    !result.matches.every((match) => typeof match === 'string')
  )
    return undefined;
  return {
    pattern: result.pattern,
    cwd: result.cwd,
    matches: result.matches as string[],
    truncated: result.truncated === true,
    ...(typeof result.notice === 'string' ? { notice: result.notice } : {}),
  };
}

/** "3 paths match *.ts" (and "first 200 shown" when the tool cut the list). */
export function pathListCaption(list: PathListResult): string {
  const count = list.matches.length;
  const head =
    count === 0 ? 'No path matches' : `${plural(count, 'path')} ${count === 1 ? 'matches' : 'match'}`;
  return `${head} ${list.pattern} in ${list.cwd}${list.truncated ? ` (cut: the first ${count} shown)` : ''}`;
}

export function renderPathList(list: PathListResult): HTMLElement {
  return h(
    'div',
    { class: 'result-paths' },
    h('p', { class: 'result-caption' }, pathListCaption(list)),
    list.notice ? h('p', { class: 'result-caption result-notice' }, list.notice) : null,
    list.matches.length > 0
      ? h(
          'ul',
          { class: 'result-path-list', 'aria-label': `Paths matching ${list.pattern}` },
          list.matches.map((match) => h('li', {}, h('code', {}, match))),
        )
      : null,
  );
}

export function readFileEditResult(result: unknown): FileEditResult | undefined {
  if (
    !isRecord(result) ||
    typeof result.path !== 'string' ||
    typeof result.replacements !== 'number' ||
    typeof result.firstChangedLine !== 'number'
  )
    return undefined;
  return {
    path: result.path,
    replacements: result.replacements,
    sha256: typeof result.sha256 === 'string' ? result.sha256 : '',
    firstChangedLine: result.firstChangedLine,
  };
}

/** "Saved: 1 replacement, from line 12." */
export function fileEditText(edit: FileEditResult): string {
  return `Saved: ${plural(edit.replacements, 'replacement')}, from line ${edit.firstChangedLine}.`;
}

export function renderFileEditResult(edit: FileEditResult): HTMLElement {
  return h('p', { class: 'result-caption result-edit' }, fileEditText(edit));
}

/**
 * What an `images` result says beside its pictures: how many were made, which failed and why, and the
 * tool's notice. Undefined when it has no `images` list.
 */
export function imageResultLines(result: unknown): string[] | undefined {
  if (!isRecord(result) || !Array.isArray(result.images)) return undefined;
  const made = result.images.length;
  const planned = typeof result.count === 'number' ? result.count : made;
  const lines = [
    `${made === planned ? plural(made, 'image') : `${made} of ${plural(planned, 'image')}`} made${typeof result.model === 'string' ? ` with ${result.model}` : ''}.`,
  ];
  if (Array.isArray(result.errors)) {
    for (const failure of result.errors) {
      if (!isRecord(failure)) continue;
      const index = typeof failure.index === 'number' ? ` ${failure.index + 1}` : '';
      lines.push(`Image${index} failed: ${String(failure.message ?? 'no reason given')}`);
    }
  }
  if (typeof result.notice === 'string' && result.notice !== '') lines.push(result.notice);
  return lines;
}

export function renderImageResultLines(lines: readonly string[]): HTMLElement {
  return h(
    'div',
    { class: 'result-image-facts' },
    lines.map((line) => h('p', { class: 'result-caption' }, line)),
  );
}
