/**
 * Which names a walk skips as dotfiles. As in `Bun.Glob.scan`, which grep's and glob's walks must agree
 * with, a wildcard never matches a leading dot, but a segment written with one does (`.github/**` walks
 * `.github`): such names are kept even when dotfiles are off. `Bun.Glob.match` alone does not apply this
 * rule, so the walks apply it to every name they list.
 */

/** A filter for `WalkTreeOptions.skipsName`, or undefined when nothing is skipped (`dot` is on). */
export function dotNameFilter(
  dot: boolean,
  glob: string | undefined,
): ((name: string) => boolean) | undefined {
  if (dot) return undefined;
  const literalDots =
    glob === undefined
      ? []
      : glob
          .split('/')
          .filter((segment) => segment.startsWith('.') && segment !== '.' && segment !== '..')
          .map((segment) => new Bun.Glob(segment));
  return (name) => name.startsWith('.') && !literalDots.some((segment) => segment.match(name));
}
