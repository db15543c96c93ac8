/**
 * A glob's matches, grouped by the directory they lie in: how a walk collects them (one name a match,
 * each directory once) and how they cross a file worker's pipe (file-worker/glob-paths-payload.ts),
 * so thousands of matches cost neither thousands of repeated prefixes nor a path built for each before
 * it is needed.
 *
 * The list is a run of tokens, NUL-separated (no path holds a NUL): a token that starts with `/` names
 * a directory below the glob's start (`/` for the start itself, `/src/lib` for `<start>/src/lib`),
 * and every other token is the name of a match in the directory named last. A walk lists a
 * directory's entries together and in name order (walk-tree.ts), so a directory's matches form one
 * group in ascending code-unit order.
 */

/** What every match's absolute path below `start` begins with. */
export function globMatchPrefix(start: string): string {
  return start === '/' ? '/' : `${start}/`;
}

/**
 * Calls `visit` for each match of `text` (tokens as above, of a list below `start`) in order, with the
 * directory's path below the start ('' for the start itself), the name, and the absolute path.
 */
export function forEachGlobMatch(
  start: string,
  text: string,
  visit: (directory: string, name: string, path: string) => void,
): void {
  if (text.length === 0) return;
  const prefix = globMatchPrefix(start);
  let directory = '';
  let base = prefix;
  for (const token of text.split('\0')) {
    if (token.charCodeAt(0) === 0x2f) {
      directory = token.slice(1);
      base = directory === '' ? prefix : `${prefix}${directory}/`;
    } else visit(directory, token, base + token);
  }
}

/** Builds a list in walk order, a match at a time (see {@link GlobMatchList}). */
export class GlobMatchCollector {
  readonly #tokens: string[] = [];
  #directory: string | undefined;
  #count = 0;

  /** Matches added so far. */
  get count(): number {
    return this.#count;
  }

  /**
   * Adds the match `name` in the directory `directory` (its path below the start: '' for the start
   * itself, `src/lib` below it).
   */
  add(directory: string, name: string): void {
    if (directory !== this.#directory) {
      this.#tokens.push(`/${directory}`);
      this.#directory = directory;
    }
    this.#tokens.push(name);
    this.#count += 1;
  }

  /** The tokens so far, NUL-separated ('' when there are none). */
  text(): string {
    return this.#tokens.join('\0');
  }
}

export class GlobMatchList {
  /**
   * `parts` are runs of tokens (each NUL-separated, not ended), in walk order; `count` is how many
   * names they hold.
   */
  constructor(
    readonly start: string,
    readonly parts: readonly string[],
    readonly count: number,
  ) {}

  /** The list of `paths`, each an absolute path below `start`, in walk order. */
  static fromPaths(start: string, paths: readonly string[]): GlobMatchList {
    const prefix = globMatchPrefix(start);
    const collector = new GlobMatchCollector();
    for (const path of paths) {
      const slash = path.lastIndexOf('/');
      if (!path.startsWith(prefix) || slash < prefix.length - 1 || slash === path.length - 1) {
        throw new Error(`glob match ${JSON.stringify(path)} is not below ${JSON.stringify(start)}`);
      }
      collector.add(slash < prefix.length ? '' : path.slice(prefix.length, slash), path.slice(slash + 1));
    }
    return new GlobMatchList(start, [collector.text()], collector.count);
  }

  /** Every token, NUL-separated ('' when there are no matches). */
  text(): string {
    return this.parts.filter((part) => part.length > 0).join('\0');
  }

  /** The matches as absolute paths, in walk order. */
  paths(): string[] {
    const paths: string[] = [];
    for (const part of this.parts)
      forEachGlobMatch(this.start, part, (_directory, _name, path) => paths.push(path));
    return paths;
  }
}
