// Planted: the bottom layer reaches up into the layer above it.
import { greeting } from '../app/greeting.ts';

export const now = (): number => 0;
export const banner = (): string => greeting().toUpperCase();
