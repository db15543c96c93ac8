import { ping } from './ping.ts';

export const pong = (count: number): number => (count <= 0 ? 0 : ping(count - 1) + 1);
