import type { LoadResult } from "./load.ts";

/** One line of the bench table (and of results.json). */
export interface Row extends Partial<LoadResult> {
  scenario: string;
  ceiling?: string;
  ratio?: number;
  goal?: string;
  met?: boolean;
  note?: string;
  /** CPU microseconds each process spent per request in this scenario. */
  cpuMicrosPerRequest?: Record<string, number>;
}
