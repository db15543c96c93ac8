/**
 * Where the names of a call are turned into real locations. Resolving a name means following the links
 * of a tree the tenant can change at the same moment, so it is done where the call's file work runs:
 * in this process by default (operator mode, the CLI, tests of the mechanics, and the file worker
 * itself, which is the tenant's own process), and in the user's file worker wherever a server installs
 * workers (sandbox/host-file-operations.ts). Everything on the server that needs a real location —
 * the path resolver, the access policy's `allowedPaths` / `deniedPaths` entries, the approval of
 * `autoApprovedPaths` — asks here, so none of it follows a tenant's name itself.
 *
 * A resolver keeps `resolveRealLocation`'s contract: `{ real, exists }`, or an error whose `code` is
 * `ELOOP`, `EACCES`, `EPERM` or `path_changed` for what the caller words, anything else for a failure.
 */
import type { ToolContext } from '../types.ts';
import { type RealLocation, resolveRealLocation } from './real-location.ts';

/** Resolves an absolute, lexically normalised path to its real location. */
export type LocationResolver = (absolute: string) => Promise<RealLocation>;

/** Where the names of one call are resolved. */
export type LocationResolution = (context: ToolContext) => LocationResolver;

/** This process, as `resolveRealLocation` does it. */
export const resolveHere: LocationResolver = (absolute) => resolveRealLocation(absolute);

let resolution: LocationResolution = () => resolveHere;

/** The resolver of the call `context`. */
export function locationResolverFor(context: ToolContext): LocationResolver {
  return resolution(context);
}

/**
 * Sets where every later call's names are resolved. Set once, by the module that decides where each
 * call's file work runs (sandbox/host-file-operations.ts), which sends each call's names to the same
 * place as its file work; a process that never loads it (the file worker) resolves here.
 */
export function setLocationResolution(next: LocationResolution): void {
  resolution = next;
}
