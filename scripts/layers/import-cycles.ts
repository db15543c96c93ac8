/**
 * The import cycles of a graph, one per tangle: for every strongly connected component with more than one
 * file (or a file importing itself), the shortest cycle through its first file in sorted order.
 *
 * Why one per component rather than every cycle: the number of elementary cycles can grow exponentially
 * with the size of a tangle, while breaking the reported one either frees the component or lets the next
 * run report the next cycle; one clear cycle per tangle is what a contributor can act on. The component's
 * size is reported too, so a large tangle is not mistaken for a single edge.
 */
import type { ImportEdge } from './import-graph.ts';

export interface ImportCycle {
  /** The files in import order; the first file is imported again by the last. */
  files: string[];
  /**
   * True when at least one edge exists only for the type checker: the cycle is gone at run time, but the
   * files still cannot be understood, type-checked or moved one without the other.
   */
  typeOnly: boolean;
  /** How many files the strongly connected component holding the cycle has. */
  componentSize: number;
}

/** Tarjan's algorithm, iterative so a deep import chain cannot overflow the stack. */
function stronglyConnectedComponents(files: readonly string[], next: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let counter = 0;
  for (const start of files) {
    if (index.has(start)) continue;
    const work: { file: string; child: number }[] = [{ file: start, child: 0 }];
    index.set(start, counter);
    low.set(start, counter);
    counter += 1;
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1] as { file: string; child: number };
      const children = next.get(frame.file) ?? [];
      if (frame.child < children.length) {
        const child = children[frame.child] as string;
        frame.child += 1;
        if (!index.has(child)) {
          index.set(child, counter);
          low.set(child, counter);
          counter += 1;
          stack.push(child);
          onStack.add(child);
          work.push({ file: child, child: 0 });
        } else if (onStack.has(child)) {
          low.set(frame.file, Math.min(low.get(frame.file) as number, index.get(child) as number));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent !== undefined) {
        low.set(parent.file, Math.min(low.get(parent.file) as number, low.get(frame.file) as number));
      }
      if (low.get(frame.file) === index.get(frame.file)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop() as string;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.file);
        components.push(component.sort());
      }
    }
  }
  return components;
}

/** Breadth-first search for the shortest path from `start` back to itself inside `members`. */
function shortestCycle(start: string, members: ReadonlySet<string>, next: Map<string, string[]>): string[] {
  const previous = new Map<string, string>();
  const queue = [start];
  for (let head = 0; head < queue.length; head += 1) {
    const file = queue[head] as string;
    for (const child of next.get(file) ?? []) {
      if (!members.has(child)) continue;
      if (child === start) {
        const path = [file];
        while (path[path.length - 1] !== start)
          path.push(previous.get(path[path.length - 1] as string) as string);
        return path.reverse();
      }
      if (!previous.has(child)) {
        previous.set(child, file);
        queue.push(child);
      }
    }
  }
  throw new Error(`No cycle through ${start} inside its own strongly connected component.`);
}

/** Every tangle of `edges` among `files`, as one shortest cycle each, sorted by first file. */
export function findImportCycles(files: readonly string[], edges: readonly ImportEdge[]): ImportCycle[] {
  const next = new Map<string, string[]>();
  const edgeTypeOnly = new Map<string, boolean>();
  for (const edge of edges) {
    next.set(edge.from, [...(next.get(edge.from) ?? []), edge.to]);
    edgeTypeOnly.set(`${edge.from}\n${edge.to}`, edge.typeOnly);
  }
  for (const children of next.values()) children.sort();

  const cycles: ImportCycle[] = [];
  for (const component of stronglyConnectedComponents([...files].sort(), next)) {
    const start = component[0] as string;
    const selfImport = edgeTypeOnly.has(`${start}\n${start}`);
    if (component.length === 1 && !selfImport) continue;
    const path = shortestCycle(start, new Set(component), next);
    const typeOnly = path.some(
      (file, position) => edgeTypeOnly.get(`${file}\n${path[(position + 1) % path.length]}`) === true,
    );
    cycles.push({ files: path, typeOnly, componentSize: component.length });
  }
  return cycles.sort((a, b) => ((a.files[0] as string) < (b.files[0] as string) ? -1 : 1));
}
