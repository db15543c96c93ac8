// Planted: ping.ts and pong.ts import each other's code, a cycle that exists at run time.
import { pong } from './pong.ts';

export const ping = (count: number): number => (count <= 0 ? 0 : pong(count - 1) + 1);
