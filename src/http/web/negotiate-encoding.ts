/**
 * Picks the content coding of a static answer from the request's `Accept-Encoding` (RFC 9110 §12.5.3):
 * the first of the offered codings (in the server's order of preference) that the header accepts with a
 * q-value above 0, by name or through `*`; none (identity) when the header is absent or accepts none of
 * them. A coding listed with `q=0` is refused even when `*` would accept it.
 */

export function negotiateEncoding<Encoding extends string>(
  acceptEncoding: string | null,
  offered: readonly Encoding[],
): Encoding | undefined {
  if (!acceptEncoding || offered.length === 0) return undefined;
  const weights = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [rawName, ...parameters] = part.split(';');
    const name = rawName!.trim().toLowerCase();
    if (name === '') continue;
    let weight = 1;
    for (const parameter of parameters) {
      const match = /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(parameter);
      if (match) weight = Number(match[1]);
    }
    weights.set(name, Number.isFinite(weight) ? weight : 0);
  }
  const wildcard = weights.get('*') ?? 0;
  return offered.find((encoding) => (weights.get(encoding) ?? wildcard) > 0);
}
